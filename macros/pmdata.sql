{% macro pmdata_minutes_to_daily(minute_glob, raw_field, dataset='pmdata',
                                 hr_glob='pmdata/*/fitbit/time_in_heart_rate_zones.json') -%}
{#-
  PMData per-minute Fitbit series (steps.json, distance.json) -> one staging row per subject and local
  day with the day's sum (DESIGN.md §2; FORMATS.md §1.2, §0.5, §0.6). Shared by stg_pmdata__steps and
  stg_pmdata__distance, whose headers document the rules:
  * repeated timestamps collapse to one minute (their maximum) before summing;
  * a day without minute rows has no row;
  * a day summing to 0 with no heart-rate-zone minutes that day is a no-wear day -> no row.
  dateTime and value are parsed by the macros of macros/quarantine.sql; a minute whose dateTime is
  not a (plausible) timestamp or whose value is not a number, or is negative, is listed in raw_rejected
  and left out of the day's sum.
  dataset 'fitbit' (issue 28): the same logic over a person's Fitbit account export (Takeout), one file
  per period (`steps-2024-03-01.json`), person = the folder under fitbit/ (fitbit_person), timestamps
  month-first 'MM/DD/YY HH:MM:SS' (read by wag_parse_timestamp).
-#}
{%- if wag_files_exist(minute_glob) %}
with raw as (
    select
        {{ fitbit_person_expr(dataset) }} as pid,
        {{ wag_parse_timestamp('dateTime') }} as minute_ts,
        {{ wag_parse_number('value') }} as amount
    from {{ wag_read_json(minute_glob, "columns = {dateTime: 'VARCHAR', value: 'VARCHAR'}") }}
),

minutes as (
    select pid, minute_ts, max(amount) as amount
    from raw
    -- a negative minute is quarantined (raw_rejected: 'value is negative'), not summed: the day keeps
    -- its other minutes (issue 24)
    where pid <> '' and minute_ts is not null and amount >= 0
    group by pid, minute_ts
),

per_day as (
    select pid, cast(minute_ts as date) as day, sum(amount) as value
    from minutes
    group by pid, cast(minute_ts as date)
),

hr_days as (
{%- if wag_files_exist(hr_glob) %}
    select pid, day
    from (
        select
            {{ fitbit_person_expr(dataset) }} as pid,
            {{ pmdata_zone_day('dateTime') }} as day,
            {{ pmdata_zone_minutes(wag_q('value')) }} as hr_minutes
        from {{ wag_read_json(hr_glob, "columns = {dateTime: 'VARCHAR', value: 'JSON'}") }}
    ) as zones
    where day is not null
    group by pid, day
    having max(hr_minutes) > 0
{%- else %}
    select cast(null as string) as pid, cast(null as date) as day where false
{%- endif %}
)

select
    cast({{ wag_sql_string(dataset) }} as string) as dataset,
    cast({{ wag_sql_string(dataset ~ ':') }} || d.pid as string) as subject_id,
    cast(d.day as date) as day,
    cast('{{ raw_field }}' as string) as raw_field,
    cast(d.value as double) as value,
    cast(null as string) as value_text
from per_day as d
left join hr_days as h
    on h.pid = d.pid and h.day = d.day
where d.value > 0 or h.pid is not null
{%- else %}
{{ wag_empty_raw() }}
{%- endif %}
{%- endmacro %}


{% macro pmdata_zone_day(date_expr) -%}
  {#- The day of a time_in_heart_rate_zones.json element (dateTime 'YYYY-MM-DD 00:00:00'); shared by
      stg_pmdata__wear_time, pmdata_minutes_to_daily and raw_rejected. -#}
  {{ wag_parse_date(date_expr) }}
{%- endmacro %}


{% macro pmdata_zone_minutes(value_expr) -%}
  {#- Minutes with a heart rate of a time_in_heart_rate_zones.json element: the sum of
      value.valuesInZones.* (a zone that is not a number counts as absent; raw_rejected lists it). -#}
  {{ wag_json_values_sum(value_expr, '$.valuesInZones', wag_parse_number('ITEM')) }}
{%- endmacro %}


{% macro fitbit_person_expr(dataset='pmdata') -%}
  {#- The participant of a Fitbit JSON file from its path: PMData `pmdata/<pid>/fitbit/<file>`, or a
      person's Takeout export `fitbit/<person>/…/<file>` (any depth: `Takeout/Fitbit/Global Export
      Data/` or that folder itself; issue 28): the first folder under data_dir/fitbit/. -#}
  {%- if dataset == 'fitbit' -%}
  split_part(substr({{ wag_path_slashes('filename') }}, length({{ wag_sql_string(wag_file_root() ~ '/fitbit/') }}) + 1), '/', 1)
  {%- else -%}
  regexp_extract({{ wag_path_slashes('filename') }}, '/([^/]+)/fitbit/[^/]+$', 1)
  {%- endif -%}
{%- endmacro %}


{% macro pmdata_wear_time(dataset='pmdata', hr_glob='pmdata/*/fitbit/time_in_heart_rate_zones.json') -%}
{#- The body of stg_pmdata__wear_time (its header has the rules), shared with stg_fitbit__wear_time
    (a person's Takeout export, one time_in_heart_rate_zones-YYYY-MM-DD.json per period; issue 28). -#}
{%- if wag_files_exist(hr_glob) %}
with raw as (
    select
        {{ fitbit_person_expr(dataset) }} as pid,
        cast({{ pmdata_zone_day('dateTime') }} as date) as day,
        {{ pmdata_zone_minutes(wag_q('value')) }} as zone_minutes
    from {{ wag_read_json(hr_glob, "columns = {dateTime: 'VARCHAR', value: 'JSON'}") }}
)

select
    cast({{ wag_sql_string(dataset) }} as string)  as dataset,
    cast({{ wag_sql_string(dataset ~ ':') }} || pid as string) as subject_id,
    day,
    cast(least(max(zone_minutes), 1440) as double)  as wear_minutes,
    cast('minutes with heart rate (time_in_heart_rate_zones.json)' as string) as evidence
from raw
where pid <> '' and day is not null and zone_minutes is not null
group by pid, day
{%- else %}
select cast(null as string) as dataset, cast(null as string) as subject_id, cast(null as date) as day,
       cast(null as double) as wear_minutes, cast(null as string) as evidence
where false
{%- endif %}
{%- endmacro %}
