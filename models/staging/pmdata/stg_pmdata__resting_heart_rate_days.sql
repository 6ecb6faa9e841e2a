{#-
  PMData daily resting heart rate, renamed and cast (DESIGN.md §2; FORMATS.md §1.2, §0.2, §0.5).

  Input : pmdata/<pid>/fitbit/resting_heart_rate.json (source pmdata_raw.fitbit_resting_heart_rate), one
          element per day:
          {"dateTime": "2019-11-01 00:00:00", "value": {"date": "11/01/19", "value": 53.74, "error": 6.79}}
  Output: one row per element as written: pid (participant folder), the date of dateTime (ISO; value.date is
          month-first and null on missing days: not read) as `day`, and bpm (value.value). Fitbit's "no estimate"
          sentinel (value 0) is kept here; int_pmdata__resting_heart_rate_aggregated drops it.
  dateTime and value are parsed by the macros of macros/quarantine.sql; an element with no readable
  dateTime or a value that is not a number is listed in raw_rejected.
-#}
{%- set rhr_glob = wag_source_glob('pmdata_raw', 'fitbit_resting_heart_rate') -%}
{%- if wag_files_exist(rhr_glob) %}
with source as (
    select *
    from {{ wag_read_json(rhr_glob, "columns = {dateTime: 'VARCHAR', value: 'JSON'}") }}
),

renamed as (
    select
        regexp_extract({{ wag_path_slashes('filename') }}, '/([^/]+)/fitbit/[^/]+$', 1) as pid,
        {{ wag_parse_date('dateTime') }} as day,
        {{ wag_parse_number(wag_json_text(wag_q('value'), '$.value')) }} as bpm
    from source
)

select * from renamed
{%- else %}
-- no resting_heart_rate.json under the data folder: the same columns, no rows
select
    cast(null as string) as pid,
    {{ wag_parse_date('cast(null as string)') }} as day,
    cast(null as double) as bpm
where false
{%- endif %}
