{#-
  PMData Fitbit exercise bouts -> staging contract (DESIGN.md §2; FORMATS.md §1.4, §5).

  Input : stg_pmdata__exercise_bouts (one row per element of exercise.json, renamed and cast).
  Output raw_fields, one row per (subject_id, day, raw_field); listed in wag_staging_models:
    exercise.activities (text): the day's bouts as 'Name (N min)' joined by '; ', ordered by start time
        (then logId), e.g. 'Walk (22 min); Run (24 min)'. N = duration (ms) / 60000 rounded to whole
        minutes; a bout without duration is listed by name only.
    exercise.vo2Max (ml/kg/min): mean of vo2Max.vo2Max over the day's bouts that carry one (GPS runs).

  Rules
  * day = local calendar date of startTime (local wall time). A bout without a participant folder or a
    readable startTime gives nothing.
  * Bouts are deduplicated on logId (on startTime when logId is missing).
-#}
with exercise_bouts as (
    select * from {{ ref('stg_pmdata__exercise_bouts') }}
),

bouts as (
    select
        *,
        cast(start_ts as date) as day,
        case
            when duration_ms is null then activity_name
            else activity_name || ' (' || cast(cast(round(duration_ms / 60000.0) as bigint) as string) || ' min)'
        end as label
    from exercise_bouts
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
