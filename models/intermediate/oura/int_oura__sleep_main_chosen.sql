{#-
  Oura main sleep per wake-up day of a person's Oura export (issue 28; DESIGN.md §2: the IFH Oura rules,
  models/intermediate/ifh_affect/int_ifh_affect__sleep_unpivoted.sql).

  Input : stg_oura__sleep (one row per sleep period, renamed and cast).
  Rules
  * Periods of type 'deleted' (Oura's tombstone) and 'rest' (a rest period, not sleep) are left out;
    long_sleep, sleep, late_nap and an absent type are sleep periods.
  * day = the local calendar date of bedtime_end (the wake-up day, DESIGN.md §2): a sleep from
    23:10 to 06:40 belongs to the morning it ends on. The wall clock of each end is the one in its
    own UTC offset, so travel and DST need no time zone. Oura's own `day` label is not used; a period
    without a readable bedtime_end has no day and is listed in raw_rejected.
  * Main sleep = the longest period ending that day (largest time_in_bed, then total_sleep_duration,
    then the latest bedtime_end, then id) — the IFH rule "the longest duration is the main sleep";
    naps ending the same day are not added to it.
  * 0 is "no reading" (Oura writes 0 when it has none, FORMATS.md §0.5) for time_in_bed,
    total_sleep_duration, efficiency, lowest_heart_rate, average_heart_rate, average_hrv and
    average_breath: NULL here. Stage seconds, awake_time and latency keep real 0s.
  * bedtime_start_seconds / bedtime_end_seconds: wall-clock seconds from local midnight at the start of
    `day` (the evening before is negative: 23:10 = -3000).
  Output: one row per (subject_id, day) with the chosen period's values (raw units: seconds, %, bpm, ms).
-#}
with periods as (
    select * from {{ ref('stg_oura__sleep') }}
),

sleep_periods as (
    select *, cast(bedtime_end_local as date) as day
    from periods
    where coalesce(sleep_type, '') not in ('deleted', 'rest')
      and bedtime_end_local is not null
),

main_sleep as (
    select
        *,
        count(*) over (partition by subject_id, day) as n_periods
    from sleep_periods
    qualify row_number() over (
        partition by subject_id, day
        order by time_in_bed desc nulls last, total_sleep_duration desc nulls last,
                 bedtime_end_local desc, sleep_id
    ) = 1
)

select
    subject_id,
    day,
    sleep_id,
    sleep_type,
    n_periods,
    filename,
    locator,
    bedtime_start_local,
    bedtime_end_local,
    cast({{ wag_seconds_between('cast(day as timestamp)', 'bedtime_start_local') }} as double) as bedtime_start_seconds,
    cast({{ wag_seconds_between('cast(day as timestamp)', 'bedtime_end_local') }} as double) as bedtime_end_seconds,
    nullif(time_in_bed, 0)          as time_in_bed,
    nullif(total_sleep_duration, 0) as total_sleep_duration,
    awake_time,
    light_sleep_duration,
    deep_sleep_duration,
    rem_sleep_duration,
    latency,
    nullif(efficiency, 0)           as efficiency,
    nullif(lowest_heart_rate, 0)    as lowest_heart_rate,
    nullif(average_heart_rate, 0)   as average_heart_rate,
    nullif(average_hrv, 0)          as average_hrv,
    nullif(average_breath, 0)       as average_breath
from main_sleep
