{#-
  PMData sleep summaries -> staging contract (DESIGN.md §2; FORMATS.md §1.3, §0.4, §0.6, §0.11).

  Input : pmdata/<pid>/fitbit/sleep.json, one element per Fitbit sleep log (API v1.2 shape).
  Output: one row per (subject_id, day, raw_field); day = dateOfSleep = the wake-up day.

  Rules
  * Whole-record duplicates share a logId: keep one row per (participant, logId).
  * Only logs with mainSleep = true are used (the Fitbit Web API spells the flag isMainSleep: read
    as the same flag). Should several main-sleep logs remain for one dateOfSleep, the longest
    (largest timeInBed, then highest logId) is kept.
  * Timestamps are parsed by wag_parse_timestamp (macros/quarantine.sql: 'T' or space, optional
    '.000' / 'Z'). A log this model cannot use (no logId, no or unreadable flag, no day, a field that
    is not a number or timestamp) is listed with its reason in raw_rejected, which applies the same
    macros.
  * Every number is read as text and cast here (quoted and unquoted numbers both work).
  * wake_after_sleep_onset uses minutesAwake for every log: for stages logs it equals
    levels.summary.wake.minutes (checked on all 436 stages logs of the excerpts); for classic logs
    it is restless + awake minutes.
  * Stage minutes (levels.summary.deep/light/rem.minutes) exist for stages logs only; classic logs
    give no stage rows.
  * minutesToFallAsleep is 0 in every observed log (device limitation, FORMATS §1.3): kept as 0.
  * sleep.startTime / sleep.endTime: wall-clock minutes (seconds / 60) from local midnight at the
    start of `day` (23:30 the evening before = -30, 07:15 = 435). Times are local, naive; the
    difference is taken on the wall clock, so the DST night keeps clock semantics.
  * sleep.levels.asleep_midpoint (midpoint_of_sleep, "awake periods ignored"): minutes from startTime
    to the instant at which half of the log's asleep time has elapsed. The hypnogram levels.data
    (30-s aligned segments) is expanded to 30-s epochs; an epoch is asleep when its level is
    light/deep/rem (stages) or asleep (classic) and no levels.shortData wake (<= 3 min) covers it.
    These epochs reproduce minutesAsleep to within +-0.5 min on 95 % of the excerpt's main-sleep
    logs (max 3.5 min). Times are naive local wall clock (the DST night is not corrected).
    A log without levels.data gives no midpoint row.
-#}
{{ pmdata_sleep_logs(glob=wag_source_glob('pmdata_raw', 'fitbit_sleep')) }}
