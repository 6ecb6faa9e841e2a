{#-
  PMData daily resting heart rate -> staging contract (DESIGN.md §2; FORMATS.md §1.2, §0.2, §0.5).

  Input : stg_pmdata__resting_heart_rate_days (one row per element of resting_heart_rate.json).
  Output: raw_field 'resting_heart_rate.value' (bpm), one row per (subject_id, day). Listed in
          wag_staging_models (macros/staging_models.sql).

  Rules
  * day = date of dateTime.
  * value 0 (with date null, error 0) is Fitbit's "no estimate" sentinel -> no row; so is any
    non-positive or absent value, and an element without a participant folder or a readable dateTime.
  * A repeated dateTime collapses to the mean of its positive values (none observed).
-#}
with resting_heart_rate_days as (
    select * from {{ ref('stg_pmdata__resting_heart_rate_days') }}
)

select
    cast('pmdata' as string) as dataset,
    cast('pmdata:' || pid as string) as subject_id,
    day,
    cast('resting_heart_rate.value' as string) as raw_field,
    cast(avg(bpm) as double) as value,
    cast(null as string) as value_text
from resting_heart_rate_days
where pid <> '' and day is not null and bpm > 0
group by pid, day
