{#-
  PMData Fitbit exercise bouts -> staging contract (DESIGN.md §2; FORMATS.md §1.4, §5).

  Input : pmdata/<pid>/fitbit/exercise.json, one element per activity bout (auto-detected or tracker).
  Output raw_fields:
    exercise.activities (text): the day's bouts as 'Name (N min)' joined by '; ', ordered by start time
        (then logId), e.g. 'Walk (22 min); Run (24 min)'. N = duration (ms) / 60000 rounded to whole
        minutes; a bout without duration is listed by name only.
    exercise.vo2Max (ml/kg/min): mean of vo2Max.vo2Max over the day's bouts that carry one (GPS runs).

  Rules
  * day = local calendar date of startTime ('2019-11-05 22:40:41', local wall time; the month-first
    originalStartTime is not used).
  * Bouts are deduplicated on logId.
  * startTime, duration and vo2Max are parsed by the macros of macros/quarantine.sql ('T' or space,
    '.000', 'Z' read); a bout without a readable startTime, or with a duration / vo2Max that is not
    a number, is listed in raw_rejected.
-#}
{%- set exercise_glob = wag_source_glob('pmdata_raw', 'fitbit_exercise') -%}
{%- if wag_files_exist(exercise_glob) %}
with raw as (
    select
        regexp_extract({{ wag_path_slashes('filename') }}, '/([^/]+)/fitbit/[^/]+$', 1) as pid,
        trim(logId) as log_id,
        trim(activityName) as activity_name,
        {{ wag_parse_number('duration') }} as duration_ms,
        {{ wag_parse_timestamp('startTime') }} as start_ts,
        {{ wag_parse_number(wag_json_text('vo2Max', '$.vo2Max')) }} as vo2_max
    from {{ wag_read_json(exercise_glob,
        "columns = {logId: 'VARCHAR', activityName: 'VARCHAR', duration: 'VARCHAR', startTime: 'VARCHAR',
                    vo2Max: 'JSON'}") }}
),

bouts as (
    select
        *,
        cast(start_ts as date) as day,
        case
            when duration_ms is null then activity_name
            else activity_name || ' (' || cast(cast(round(duration_ms / 60000.0) as bigint) as string) || ' min)'
        end as label
    from raw
    where pid <> '' and start_ts is not null
    qualify row_number() over (partition by pid, coalesce(log_id, cast(start_ts as string)) order by start_ts) = 1
),

per_day as (
    select
        pid,
        day,
        -- string_agg skips NULLs: the CASE is the filter (one spelling for both engines)
        {{ wag_string_agg("case when label is not null and label <> '' then label end", "'; '", 'start_ts, log_id') }} as activities,
        avg(vo2_max) as vo2_max
    from bouts
    group by pid, day
)

select
    cast('pmdata' as string) as dataset,
    cast('pmdata:' || pid as string) as subject_id,
    cast(day as date) as day,
    cast('exercise.activities' as string) as raw_field,
    cast(null as double) as value,
    cast(activities as string) as value_text
from per_day
where activities is not null
union all
select
    'pmdata',
    'pmdata:' || pid,
    cast(day as date),
    'exercise.vo2Max',
    cast(vo2_max as double),
    cast(null as string)
from per_day
where vo2_max is not null
{%- else %}
{{ wag_empty_raw() }}
{%- endif %}
