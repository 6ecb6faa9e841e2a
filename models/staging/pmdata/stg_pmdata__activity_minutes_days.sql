{#-
  PMData daily activity-level minutes, renamed and cast (DESIGN.md §2; FORMATS.md §1.2, §0.1, §0.5).

  Input : pmdata/<pid>/fitbit/{sedentary,lightly_active,moderately_active,very_active}_minutes.json (source
          pmdata_raw.fitbit_activity_minutes), one element per day:
          {"dateTime": "2019-11-01 00:00:00", "value": "245"} (minutes, string).
  Output: one row per element as written: pid (participant folder), level (sedentary, lightly_active,
          moderately_active, very_active: from the file name), day (the date of dateTime) and minutes.
          The files carry all 152 days, worn or not: the not-worn days and the per-day fields are
          int_pmdata__activity_minutes_filtered.
  dateTime and value are parsed by the macros of macros/quarantine.sql; an element whose dateTime is not
  a date or whose value is not a number is listed in raw_rejected.
-#}
{%- set minutes_glob = wag_source_glob('pmdata_raw', 'fitbit_activity_minutes') -%}
{%- if wag_files_exist(minutes_glob) %}
with source as (
    select *
    from {{ wag_read_json(minutes_glob, "columns = {dateTime: 'VARCHAR', value: 'VARCHAR'}") }}
),

renamed as (
    select
        regexp_extract({{ wag_path_slashes('filename') }}, '/([^/]+)/fitbit/[^/]+$', 1) as pid,
        regexp_extract({{ wag_path_slashes('filename') }}, '/([a-z_]+)_minutes\.json$', 1) as level,
        {{ wag_parse_date('dateTime') }} as day,
        {{ wag_parse_number('value') }} as minutes
    from source
)

select * from renamed
{%- else %}
-- no *_minutes.json under the data folder: the same columns, no rows
select
    cast(null as string) as pid,
    cast(null as string) as level,
    {{ wag_parse_date('cast(null as string)') }} as day,
    cast(null as double) as minutes
where false
{%- endif %}
