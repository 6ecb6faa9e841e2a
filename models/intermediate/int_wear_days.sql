-- Wear evidence per subject-day and the non-wear verdict (DESIGN.md §2 "Non-wear").
-- A day whose evidence shows less than var('min_wear_hours') (default 10) hours of wear is missing for
-- the wear-dependent activity metrics (var('wear_dependent_metrics'): device daily totals such as steps,
-- distance, active/sedentary minutes, energy expenditure), not only the exact 1,440-sedentary sentinel.
-- Per dataset:
--   pmdata     minutes with a heart rate (time_in_heart_rate_zones.json)          stg_pmdata__wear_time
--   lifesnaps  minutes with a heart rate (Fitbit zone columns of the daily CSV)   stg_lifesnaps__wear_time
--   ifh_affect Oura's classified wear minutes rest + inactive + low/medium/high   stg_ifh_affect__activity
--   globem     no wear evidence in the RAPIDS feature files: not applied
--   wide       no wear evidence in a wide export: not applied
-- A day without evidence keeps its values (the staging sentinel rules still apply to it).
with pmdata as (
    select dataset, subject_id, day, wear_minutes, evidence from {{ ref('stg_pmdata__wear_time') }}
),

lifesnaps as (
    select dataset, subject_id, day, wear_minutes, evidence from {{ ref('stg_lifesnaps__wear_time') }}
),

ifh_activity as (
    select * from {{ ref('stg_ifh_affect__activity') }}
),

ifh_affect as (
    select
        dataset,
        subject_id,
        day,
        cast(least(sum(value), 1440) as double) as wear_minutes,
        cast('Oura classified wear minutes (rest + inactive + low + medium + high)' as string) as evidence
    from ifh_activity
    where raw_field in ('activity.rest', 'activity.inactive', 'activity.active_minutes')
    group by dataset, subject_id, day
),

evidence as (
    select * from pmdata
    union all
    select * from lifesnaps
    union all
    select * from ifh_affect
)

select
    dataset,
    subject_id,
    day,
    wear_minutes,
    evidence,
    wear_minutes >= {{ var('min_wear_hours') }} * 60 as is_worn
from evidence
