{#-
  PMData sleep summaries -> staging contract (DESIGN.md §2; FORMATS.md §1.3, §0.4, §0.11).

  Input : int_pmdata__main_sleeps_selected (one main sleep per participant and wake-up day) and
          int_pmdata__sleep_epochs_expanded (its asleep 30-s epochs).
  Output: one row per (subject_id, day, raw_field), raw_field = 'sleep.<field>'; day = the wake-up day.
          Listed in wag_staging_models (macros/staging_models.sql), which int_metric_values__mapped unions.

  Fields
  * timeInBed, minutesAsleep, minutesAwake, efficiency, minutesToFallAsleep, minutesAfterWakeup as
    logged; wake_after_sleep_onset uses minutesAwake for every log: for stages logs it equals
    levels.summary.wake.minutes (checked on all 436 stages logs of the excerpts); for classic logs it is
    restless + awake minutes. minutesToFallAsleep is 0 in every observed log (device limitation,
    FORMATS §1.3): kept as 0.
  * levels.deep/light/rem.minutes: stages logs only; classic logs give no stage rows.
  * sleep.startTime / sleep.endTime: wall-clock minutes (seconds / 60) from local midnight at the
    start of `day` (23:30 the evening before = -30, 07:15 = 435). Times are local, naive; the
    difference is taken on the wall clock, so the DST night keeps clock semantics.
  * sleep.levels.asleep_midpoint (midpoint_of_sleep, "awake periods ignored"): minutes from startTime
    to the instant at which half of the log's asleep epochs have elapsed: inside epoch k = ceil(n/2) of
    int_pmdata__sleep_epochs_expanded. A log without levels.data gives no midpoint row.
  Missing values give no row (wag_contract_rows).
-#}
with main_sleeps as (
    select * from {{ ref('int_pmdata__main_sleeps_selected') }}
),

sleep_epochs as (
    select * from {{ ref('int_pmdata__sleep_epochs_expanded') }}
),

asleep_midpoint as (
    -- the instant at which n/2 epochs of 30 s have been slept: inside epoch k = ceil(n/2)
    select
        pid, day,
        ({{ wag_seconds_between('start_ts', 'epoch_ts') }} + 30.0 * (n / 2.0 - (k - 1))) / 60.0 as midpoint_minutes
    from sleep_epochs
    where k = cast(ceil(n / 2.0) as bigint)
),

long as (
    select pid, day, 'sleep.timeInBed' as raw_field, time_in_bed as value from main_sleeps
    union all
    select pid, day, 'sleep.minutesAsleep', minutes_asleep from main_sleeps
    union all
    select pid, day, 'sleep.minutesAwake', minutes_awake from main_sleeps
    union all
    select pid, day, 'sleep.efficiency', efficiency from main_sleeps
    union all
    select pid, day, 'sleep.minutesToFallAsleep', minutes_to_fall_asleep from main_sleeps
    union all
    select pid, day, 'sleep.minutesAfterWakeup', minutes_after_wakeup from main_sleeps
    union all
    select pid, day, 'sleep.levels.deep.minutes', deep_minutes from main_sleeps
    union all
    select pid, day, 'sleep.levels.light.minutes', light_minutes from main_sleeps
    union all
    select pid, day, 'sleep.levels.rem.minutes', rem_minutes from main_sleeps
    union all
    select pid, day, 'sleep.startTime',
           {{ wag_seconds_between('cast(day as timestamp)', 'start_ts') }} / 60.0
    from main_sleeps
    union all
    select pid, day, 'sleep.endTime',
           {{ wag_seconds_between('cast(day as timestamp)', 'end_ts') }} / 60.0
    from main_sleeps
    union all
    select pid, day, 'sleep.levels.asleep_midpoint', midpoint_minutes from asleep_midpoint
)

{{ wag_contract_rows('pmdata', 'long', pid_column='pid') }}
