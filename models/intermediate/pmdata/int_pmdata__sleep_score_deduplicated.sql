{#-
  PMData Fitbit sleep score -> staging contract (DESIGN.md §2; FORMATS.md §1.5, §0.3).

  Input : stg_pmdata__sleep_score_records (one row per CSV row, renamed and cast).
  Output: raw_field 'sleep_score.overall_score' (0-100), one row per (subject_id, day). Listed in
          wag_staging_models (macros/staging_models.sql).

  Rules
  * day = calendar date of `timestamp`, the LOCAL sleep end -> the wake-up day, consistent with
    stg_pmdata__sleep. A row without a participant folder, a readable timestamp or a
    score gives nothing (raw_rejected lists the unreadable ones).
  * Duplicate sleep_log_entry_id rows collapse to one (the earliest).
  * Two scores on one day (a nap scored besides the night) -> the earliest timestamp of the day is
    kept (the night ends before a daytime nap; on the excerpts this is the main-sleep score on both
    such days). sleep.json is deliberately not joined.
-#}
with score_records as (
    select * from {{ ref('stg_pmdata__sleep_score_records') }}
),

per_log as (
    select *
    from score_records
    where pid <> '' and end_local is not null and overall_score is not null
    qualify row_number() over (partition by pid, log_id order by end_local) = 1
),

per_day as (
    select pid, cast(end_local as date) as day, overall_score
    from per_log
    qualify row_number() over (partition by pid, cast(end_local as date) order by end_local, log_id) = 1
)

select
    cast('pmdata' as string) as dataset,
    cast('pmdata:' || pid as string) as subject_id,
    cast(day as date) as day,
    cast('sleep_score.overall_score' as string) as raw_field,
    cast(overall_score as double) as value,
    cast(null as string) as value_text
from per_day
