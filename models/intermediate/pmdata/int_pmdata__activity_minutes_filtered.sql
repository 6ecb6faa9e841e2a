{#-
  PMData daily activity-level minutes -> staging contract (DESIGN.md §2 "Non-wear"; FORMATS.md §1.2,
  §0.1, §0.5).

  Input : stg_pmdata__activity_minutes_days (one row per element of the four *_minutes.json files).
  Output raw_fields (minutes), one row per (subject_id, day, raw_field); listed in wag_staging_models:
    activity.sedentary_minutes, activity.lightly_active_minutes,
    activity.moderately_active_minutes, activity.very_active_minutes,
    activity.active_minutes = lightly + moderately + very (only when all three exist that day).

  Rules
  * Not-worn days: sedentary = 1440 and lightly + moderately + very = 0 (an absent file counts as 0)
    -> no row for any field that day (the files carry all 152 days, worn or not).
  * Partly worn days: int_wear_days compares the day's minutes with a heart rate
    (stg_pmdata__wear_time) with var min_wear_hours (10 h); below it the activity values are missing
    (DESIGN.md §2 "Non-wear"), listed in metric_values_rejected with the reason.
  * A repeated dateTime within one file collapses to its maximum (none observed).
  * An element without a participant folder, a readable day or a number gives nothing.
-#}
with activity_minutes_days as (
    select * from {{ ref('stg_pmdata__activity_minutes_days') }}
),

per_day as (
    select
        pid,
        day,
        max(case when level = 'sedentary' then minutes end) as sedentary,
        max(case when level = 'lightly_active' then minutes end) as lightly,
        max(case when level = 'moderately_active' then minutes end) as moderately,
        max(case when level = 'very_active' then minutes end) as very
    from activity_minutes_days
    where pid <> '' and day is not null and minutes is not null
    group by pid, day
),

worn as (
    select *
    from per_day
    where not (
        coalesce(sedentary, 0) = 1440
        and coalesce(lightly, 0) + coalesce(moderately, 0) + coalesce(very, 0) = 0
    )
),

long as (
    select pid, day, 'activity.sedentary_minutes' as raw_field, sedentary as value from worn
    union all
    select pid, day, 'activity.lightly_active_minutes', lightly from worn
    union all
    select pid, day, 'activity.moderately_active_minutes', moderately from worn
    union all
    select pid, day, 'activity.very_active_minutes', very from worn
    union all
    select pid, day, 'activity.active_minutes', lightly + moderately + very from worn
)

{{ wag_contract_rows('pmdata', 'long', pid_column='pid') }}
