{#-
  PMData Fitbit exercise bouts, renamed and cast (DESIGN.md §2; FORMATS.md §1.4, §5).

  Input : pmdata/<pid>/fitbit/exercise.json (source pmdata_raw.fitbit_exercise), one element per activity
          bout (auto-detected or tracker).
  Output: one row per element as written (repeated logIds included): pid (participant folder), log_id,
          activity_name, duration_ms, start_ts (startTime, local wall time; the month-first
          originalStartTime is not read) and vo2_max (vo2Max.vo2Max, GPS runs only). The day's bouts and
          VO2 max in the staging contract: int_pmdata__exercise_aggregated.
  startTime, duration and vo2Max are parsed by the macros of macros/quarantine.sql ('T' or space, '.000',
  'Z' read); a bout without a readable startTime, or with a duration / vo2Max that is not a number, is
  listed in raw_rejected.
-#}
{%- set exercise_glob = wag_source_glob('pmdata_raw', 'fitbit_exercise') -%}
{%- if wag_files_exist(exercise_glob) %}
with source as (
    select *
    from {{ wag_read_json(exercise_glob,
        "columns = {logId: 'VARCHAR', activityName: 'VARCHAR', duration: 'VARCHAR', startTime: 'VARCHAR',
                    vo2Max: 'JSON'}") }}
),

renamed as (
    select
        regexp_extract({{ wag_path_slashes('filename') }}, '/([^/]+)/fitbit/[^/]+$', 1) as pid,
        trim(logId) as log_id,
        trim(activityName) as activity_name,
        {{ wag_parse_number('duration') }} as duration_ms,
        {{ wag_parse_timestamp('startTime') }} as start_ts,
        {{ wag_parse_number(wag_json_text('vo2Max', '$.vo2Max')) }} as vo2_max
    from source
)

select * from renamed
{%- else %}
-- no exercise.json under the data folder: the same columns, no rows
select
    cast(null as string) as pid,
    cast(null as string) as log_id,
    cast(null as string) as activity_name,
    cast(null as double) as duration_ms,
    {{ wag_parse_timestamp('cast(null as string)') }} as start_ts,
    cast(null as double) as vo2_max
where false
{%- endif %}
