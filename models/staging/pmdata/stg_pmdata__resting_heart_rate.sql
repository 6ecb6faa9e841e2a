{#-
  PMData daily resting heart rate -> staging contract (DESIGN.md §2; FORMATS.md §1.2, §0.2, §0.5).

  Input : pmdata/<pid>/fitbit/resting_heart_rate.json, one element per day:
          {"dateTime": "2019-11-01 00:00:00", "value": {"date": "11/01/19", "value": 53.74, "error": 6.79}}
  Output: raw_field 'resting_heart_rate.value' (bpm).

  Rules
  * day = date of dateTime (ISO). value.date is month-first and null on missing days: not used.
  * value 0 (with date null, error 0) is Fitbit's "no estimate" sentinel -> no row; so is any
    non-positive or absent value.
  * A repeated dateTime collapses to the mean of its positive values (none observed).
  * dateTime and value are parsed by the macros of macros/quarantine.sql; an element with no
    readable dateTime or a value that is not a number is listed in raw_rejected.
-#}
{%- set rhr_glob = wag_source_glob('pmdata_raw', 'fitbit_resting_heart_rate') -%}
{%- if wag_files_exist(rhr_glob) %}
with raw as (
    select
        regexp_extract({{ wag_path_slashes('filename') }}, '/([^/]+)/fitbit/[^/]+$', 1) as pid,
        {{ wag_parse_date('dateTime') }} as day_ts,
        {{ wag_parse_number(wag_json_text(wag_q('value'), '$.value')) }} as bpm
    from {{ wag_read_json(rhr_glob, "columns = {dateTime: 'VARCHAR', value: 'JSON'}") }}
)

select
    cast('pmdata' as string) as dataset,
    cast('pmdata:' || pid as string) as subject_id,
    cast(day_ts as date) as day,
    cast('resting_heart_rate.value' as string) as raw_field,
    cast(avg(bpm) as double) as value,
    cast(null as string) as value_text
from raw
where pid <> '' and day_ts is not null and bpm > 0
group by pid, cast(day_ts as date)
{%- else %}
{{ wag_empty_raw() }}
{%- endif %}
