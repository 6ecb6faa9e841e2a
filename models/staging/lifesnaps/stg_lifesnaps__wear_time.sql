{#-
  LifeSnaps wear evidence per day (DESIGN.md §2 "Non-wear"; FORMATS.md §2.2): minutes with a heart-rate
  reading = minutes_below_default_zone_1 + minutes_in_default_zone_1 + _2 + _3 of
  daily_fitbit_sema_df_unprocessed.csv (the Fitbit heart-rate zones; sedentary minutes are filled up
  to 1,440 whether or not the watch is worn). A row whose four zone cells are all empty carries no
  evidence and has no row here (the sentinel rules of stg_lifesnaps__daily still apply). date and the
  zone cells are parsed by the macros of macros/quarantine.sql; raw_rejected lists a row whose date does
  not parse or a non-empty zone cell that is not a number (the block for this file covers both models).
  Output: one row per (subject_id, day): wear_minutes (0..1440), evidence.
-#}
{%- set daily_csv = wag_source_glob('lifesnaps_raw', 'daily_fitbit_sema_df_unprocessed') -%}
{%- set zones = ['minutes_below_default_zone_1', 'minutes_in_default_zone_1', 'minutes_in_default_zone_2',
                 'minutes_in_default_zone_3'] -%}
{% if wag_files_exist(daily_csv) %}
with raw as (
    select *
    from {{ wag_read_csv(daily_csv, "all_varchar = true, delim = ',', quote = '\"'", required=['id', 'date'] + zones) }}
),

typed as (
    select
        'lifesnaps:' || trim(id)                                as subject_id,
        {{ wag_parse_date(wag_q('date')) }}    as day,
        {%- for z in zones %}
        {{ wag_parse_number(z) }}                               as {{ z }}{{ ',' if not loop.last }}
        {%- endfor %}
    from raw
    where nullif(trim(id), '') is not null
)

select
    cast('lifesnaps' as string) as dataset,
    subject_id,
    day,
    cast(least(max({% for z in zones %}coalesce({{ z }}, 0){{ ' + ' if not loop.last }}{% endfor %}), 1440) as double) as wear_minutes,
    cast('minutes with heart rate (Fitbit heart-rate zone columns)' as string) as evidence
from typed
where day is not null
  and ({% for z in zones %}{{ z }} is not null{{ ' or ' if not loop.last }}{% endfor %})
group by subject_id, day
{%- else %}
select cast(null as string) as dataset, cast(null as string) as subject_id, cast(null as date) as day,
       cast(null as double) as wear_minutes, cast(null as string) as evidence
where false
{%- endif %}
