-- Wear evidence per subject-day and the non-wear verdict (DESIGN.md §2 "Non-wear").
-- A day whose evidence shows less than var('min_wear_hours') (default 10) hours of wear is missing for
-- the wear-dependent activity metrics (var('wear_dependent_metrics'): device daily totals such as steps,
-- distance, active/sedentary minutes, energy expenditure), not only the exact 1,440-sedentary sentinel.
-- Per dataset:
--   pmdata     minutes with a heart rate (time_in_heart_rate_zones.json)          stg_pmdata__wear_time
--   fitbit     the same, from a person's Takeout export (…-YYYY-MM-DD.json)        stg_fitbit__wear_time
--   lifesnaps  minutes with a heart rate (Fitbit zone columns of the daily CSV)   stg_lifesnaps__wear_time
--   ifh_affect Oura's classified wear minutes rest + inactive + low/medium/high   stg_ifh_affect__activity
--   oura       the same from a person's Oura export (resting + sedentary + low/medium/high activity time)
--                                                                                 int_oura__values_unpivoted
--   globem     no wear evidence in the RAPIDS feature files: not applied
--   wide       no wear evidence in a wide export: not applied
-- Heart-rate evidence (pmdata, lifesnaps) is a daily series: a day between the subject's first and last
-- day with evidence that has none (no heart-rate zone record in the file, or a row whose zone cells
-- are empty) had no minute with a heart rate, so it gets 0 wear minutes and is not worn (found by a
-- user review: p03 days with 7-212 steps and 1,435-1,439 sedentary minutes kept their activity
-- values). A day outside that span keeps its values (no evidence either way; the staging sentinel
-- rules still apply to it), as do IFH days without Oura activity rows.
with pmdata as (
    select dataset, subject_id, day, wear_minutes, evidence from {{ ref('stg_pmdata__wear_time') }}
),

lifesnaps as (
    select dataset, subject_id, day, wear_minutes, evidence from {{ ref('stg_lifesnaps__wear_time') }}
),

fitbit as (
    -- a person's Fitbit Takeout export (issue 28): the PMData evidence, same macro
    select dataset, subject_id, day, wear_minutes, evidence from {{ ref('stg_fitbit__wear_time') }}
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

heart_rate_evidence as (
    select * from pmdata
    union all
    select * from lifesnaps
    union all
    select * from fitbit
),

heart_rate_span as (
    select dataset, subject_id, min(day) as first_day, max(day) as last_day
    from heart_rate_evidence
    group by dataset, subject_id
),

heart_rate_days as (
    -- every day of the span; the days absent from the evidence: 0 minutes with a heart rate
    select
        s.dataset,
        s.subject_id,
        s.day,
        coalesce(e.wear_minutes, 0) as wear_minutes,
        coalesce(e.evidence, 'no heart-rate record that day, between days that have one') as evidence
    from (
        select dataset, subject_id, {{ wag_days_between('first_day', 'last_day') }} as day
        from heart_rate_span
    ) as s
    left join heart_rate_evidence as e
        on e.dataset = s.dataset and e.subject_id = s.subject_id and e.day = s.day
),

oura as (
    -- a person's Oura export (issue 28): Oura's classified wear time, as for IFH
    select
        dataset,
        subject_id,
        day,
        -- a day with only non_wear_time (nothing worn) is 0 minutes of wear
        cast(least(sum(case when raw_field <> 'daily_activity.non_wear_time' then value else 0 end) / 60.0, 1440) as double)
            as wear_minutes,
        cast('Oura classified wear time (resting + sedentary + low + medium + high activity)' as string) as evidence
    from {{ ref('int_oura__values_unpivoted') }}
    where raw_field in ('daily_activity.resting_time', 'daily_activity.sedentary_time', 'daily_activity.active_minutes',
                        'daily_activity.non_wear_time')
    group by dataset, subject_id, day
),

evidence as (
    select * from heart_rate_days
    union all
    select * from ifh_affect
    union all
    select * from oura
)

select
    dataset,
    subject_id,
    day,
    wear_minutes,
    evidence,
    wear_minutes >= {{ var('min_wear_hours') }} * 60 as is_worn
from evidence
