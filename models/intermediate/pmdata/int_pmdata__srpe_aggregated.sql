{#-
  PMData PMSys session RPE -> daily training load in the staging contract (DESIGN.md §2; FORMATS.md
  §1.6, §0.12).

  Input : stg_pmdata__srpe_sessions (one row per CSV row, renamed and cast).
  Output: raw_field 'srpe.training_load' = sum over the day's sessions of perceived_exertion (RPE 1-10)
          x duration_min, in arbitrary units (AU); one row per (subject_id, day). Listed in
          wag_staging_models (macros/staging_models.sql).

  Rules
  * day = LOCAL date (var pmdata_timezone, default Europe/Oslo) of end_date_time, which is UTC.
  * Empty sessions (' {},,' : no RPE or no duration) are skipped; a day with no valid session has no row.
  * Exact duplicate rows are counted once.
  * A negative RPE or duration is quarantined (raw_rejected), not summed (issue 24).
-#}
{%- set tz = var('pmdata_timezone', 'Europe/Oslo') -%}
with srpe_sessions as (
    select * from {{ ref('stg_pmdata__srpe_sessions') }}
),

distinct_sessions as (
    select distinct pid, ended_at, activity_names, rpe, duration_min
    from srpe_sessions
),

sessions as (
    select pid, {{ wag_local_day('ended_at', tz) }} as day, rpe * duration_min as load
    from distinct_sessions
    where pid <> '' and ended_at is not null and rpe >= 0 and duration_min >= 0
)

select
    cast('pmdata' as string) as dataset,
    cast('pmdata:' || pid as string) as subject_id,
    cast(day as date) as day,
    cast('srpe.training_load' as string) as raw_field,
    cast(sum(load) as double) as value,
    cast(null as string) as value_text
from sessions
group by pid, day
