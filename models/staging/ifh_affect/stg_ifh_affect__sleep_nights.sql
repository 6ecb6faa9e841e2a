{#-
  IFH Affect Oura nightly sleep summaries, renamed and cast (DESIGN.md §2, FORMATS.md §4.2, §5).

  Input : <data_dir>/ifh_affect/par_<n>/oura/sleep.csv (source ifh_affect_raw.oura_sleep), any number of
          participants (glob); LF, header, one row per night. Read all-VARCHAR then parsed by the macros of
          macros/quarantine.sql: an empty cell and the literal `null` of temperature_delta (FORMATS.md §0.5)
          are NULL; a cell that does not parse is NULL here and listed in raw_rejected. A file lacking a
          required column stops the build naming it.
  Output: one row per CSV row as written: subject_id 'ifh_affect:par_<n>' (from the folder name), day
          (`date` = local date of bedtime_end = the wake-up day, FORMATS.md §4.2), the summary numbers in
          their raw units (seconds, %, bpm, ms, breaths/min, °C deviation), the bedtime midnight deltas
          (start_delta, end_delta) and bedtime_start_timestamp (start_ts, epoch ms). The main sleep per
          day, the bedtime repair, the 0 = no reading rule and the staging-contract rows are
          int_ifh_affect__sleep_unpivoted.
-#}
{%- set sleep_glob = wag_source_glob('ifh_affect_raw', 'oura_sleep') -%}

{% if wag_files_exist(sleep_glob) %}

with source as (
    select *
    from {{ wag_read_csv(sleep_glob, "all_varchar = true, delim = ',', quote = '\"'",
                          required=['date', 'duration', 'total', 'awake', 'light', 'rem', 'deep', 'efficiency',
                                    'bedtime_start_midnight_delta', 'bedtime_end_midnight_delta']) }}
),

renamed as (
    select
        'ifh_affect:' || regexp_extract({{ wag_path_slashes('filename') }}, '/(par_[0-9]+)/oura/[^/]+$', 1)
                                                                        as subject_id,
        {{ wag_parse_date(wag_q('date')) }}            as day,
        {{ wag_parse_number('duration') }}                                    as duration,
        {{ wag_parse_number('total') }}                                       as total,
        {{ wag_parse_number('awake') }}                                       as awake,
        {{ wag_parse_number('light') }}                                       as light,
        {{ wag_parse_number('rem') }}                                         as rem,
        {{ wag_parse_number('deep') }}                                        as deep,
        {{ wag_parse_number('onset_latency') }}                               as onset_latency,
        {{ wag_parse_number('midpoint_time') }}                               as midpoint_time,
        {{ wag_parse_number('efficiency') }}                                  as efficiency,
        {{ wag_parse_number('score') }}                                       as score,
        {{ wag_parse_number('hr_lowest') }}                                   as hr_lowest,
        {{ wag_parse_number('hr_average') }}                                  as hr_average,
        {{ wag_parse_number('rmssd') }}                                       as rmssd,
        {{ wag_parse_number('breath_average') }}                              as breath_average,
        {{ wag_parse_number('temperature_delta') }}                           as temperature_delta,
        {{ wag_parse_number('bedtime_start_midnight_delta') }}                as start_delta,
        {{ wag_parse_number('bedtime_end_midnight_delta') }}                  as end_delta,
        try_cast(bedtime_start_timestamp as bigint)                     as start_ts
    from source
)

select * from renamed

{% else %}
-- no sleep.csv under the data folder: the same columns, no rows
select
    cast(null as string) as subject_id,
    {{ wag_parse_date('cast(null as string)') }} as day,
    {%- for c in ['duration', 'total', 'awake', 'light', 'rem', 'deep', 'onset_latency', 'midpoint_time',
                  'efficiency', 'score', 'hr_lowest', 'hr_average', 'rmssd', 'breath_average',
                  'temperature_delta', 'start_delta', 'end_delta'] %}
    cast(null as double) as {{ c }},
    {%- endfor %}
    cast(null as bigint) as start_ts
where false
{% endif %}
