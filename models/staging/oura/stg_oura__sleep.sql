{#-
  Oura sleep periods (API v2 `sleep`) of a person's Oura export, renamed and cast (issue 28; DESIGN.md §2).

  Input : oura/<person>/**/sleep.json ({"data": [...]}) or sleep.csv (macros/oura.sql), one object per
          sleep period (a night, a nap, a rest period): id, type (long_sleep, sleep, late_nap, rest,
          deleted), day (Oura's label), bedtime_start / bedtime_end (ISO with the local UTC offset,
          '2024-03-01T23:10:00+01:00'), time_in_bed, total_sleep_duration, awake_time,
          light/deep/rem_sleep_duration, latency (seconds), efficiency (%), lowest_heart_rate,
          average_heart_rate (bpm), average_hrv (ms), average_breath (breaths/min).
  Output: one row per object, values in the raw unit. bedtime_start_local / bedtime_end_local are the
          local wall clock of each end (the offset written in the field is dropped: it is the one in
          force where the person slept, so the wall clock is the local time; travel and DST need nothing
          else). Fields that are empty or not a number are NULL here and listed in raw_rejected.
  The rules (deleted periods out, wake-up day, main sleep, 0 = no reading) are in int_oura__sleep_main_chosen.
-#}
{%- if oura_files_exist('sleep') %}
with documents as (
    select * from {{ oura_documents('sleep') }}
),

renamed as (
    select
        cast('oura:' || pid as string)                                   as subject_id,
        cast(filename as string)                                         as filename,
        cast(locator as string)                                          as locator,
        cast({{ oura_text('$.id') }} as string)                          as sleep_id,
        cast(lower(trim({{ oura_text('$.type') }})) as string)           as sleep_type,
        cast({{ wag_parse_date(oura_text('$.day')) }} as date)           as oura_day,
        {{ wag_parse_timestamp(oura_text('$.bedtime_start')) }}          as bedtime_start_local,
        {{ wag_parse_timestamp(oura_text('$.bedtime_end')) }}            as bedtime_end_local,
        {%- for f in oura_entities()['sleep']['numbers'] %}
        cast({{ oura_number(f) }} as double) as {{ f }}{{ "," if not loop.last }}
        {%- endfor %}
    from documents
    where pid <> ''
)

select * from renamed
{%- else %}
select cast(null as string) as subject_id, cast(null as string) as filename, cast(null as string) as locator,
       cast(null as string) as sleep_id, cast(null as string) as sleep_type, cast(null as date) as oura_day,
       cast(null as timestamp) as bedtime_start_local, cast(null as timestamp) as bedtime_end_local,
       {%- for f in oura_entities()['sleep']['numbers'] %}
       cast(null as double) as {{ f }}{{ "," if not loop.last }}
       {%- endfor %}
where false
{%- endif %}
