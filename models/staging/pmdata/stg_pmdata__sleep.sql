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
{%- set sleep_glob = wag_source_glob('pmdata_raw', 'fitbit_sleep') -%}
{%- if wag_files_exist(sleep_glob) %}
with raw as (
    select
        regexp_extract({{ wag_path_slashes('filename') }}, '/([^/]+)/fitbit/[^/]+$', 1) as pid,
        logId,
        dateOfSleep,
        startTime,
        endTime,
        minutesToFallAsleep,
        minutesAsleep,
        minutesAwake,
        minutesAfterWakeup,
        timeInBed,
        efficiency,
        levels,
        mainSleep,
        isMainSleep
    from {{ wag_read_json(sleep_glob,
        "columns = {logId: 'VARCHAR', dateOfSleep: 'VARCHAR', startTime: 'VARCHAR', endTime: 'VARCHAR',
                    minutesToFallAsleep: 'VARCHAR', minutesAsleep: 'VARCHAR', minutesAwake: 'VARCHAR',
                    minutesAfterWakeup: 'VARCHAR', timeInBed: 'VARCHAR', efficiency: 'VARCHAR',
                    levels: 'JSON', mainSleep: 'VARCHAR', isMainSleep: 'VARCHAR'}") }}
),

typed as (
    select
        pid,
        trim(logId) as log_id,
        -- startTime uses a space, endTime a 'T' and '.000': both read by wag_parse_timestamp
        {{ wag_parse_timestamp('startTime', false) }} as start_ts,
        {{ wag_parse_timestamp('endTime', false) }} as end_ts,
        {{ wag_parse_timestamp('dateOfSleep', false) }} as date_of_sleep,
        {{ wag_parse_number('minutesToFallAsleep') }} as minutes_to_fall_asleep,
        {{ wag_parse_number('minutesAsleep') }} as minutes_asleep,
        {{ wag_parse_number('minutesAwake') }} as minutes_awake,
        {{ wag_parse_number('minutesAfterWakeup') }} as minutes_after_wakeup,
        {{ wag_parse_number('timeInBed') }} as time_in_bed,
        {{ wag_parse_number('efficiency') }} as efficiency,
        try_cast({{ wag_json_text('levels', '$.summary.deep.minutes') }} as double) as deep_minutes,
        try_cast({{ wag_json_text('levels', '$.summary.light.minutes') }} as double) as light_minutes,
        try_cast({{ wag_json_text('levels', '$.summary.rem.minutes') }} as double) as rem_minutes,
        levels,
        coalesce({{ wag_parse_flag('mainSleep') }}, {{ wag_parse_flag('isMainSleep') }}, false) as is_main
    from raw
    where pid <> '' and logId is not null
),

deduped as (
    select *
    from typed
    qualify row_number() over (partition by pid, log_id order by end_ts desc nulls last) = 1
),

main_sleep as (
    select
        *,
        -- an implausible day (issue 24, wag_plausible_days) is no day: raw_rejected lists the log
        cast({{ wag_plausible('coalesce(cast(date_of_sleep as date), cast(end_ts as date))') }} as date) as day
    from deduped
    where is_main
),

one_per_day as (
    select *
    from main_sleep
    where day is not null
    qualify row_number() over (
        partition by pid, day
        order by time_in_bed desc nulls last, try_cast(log_id as decimal(38, 0)) desc nulls last, log_id desc
    ) = 1
),

segments as (
    -- hypnogram segments of the kept logs: levels.data (stage of every 30-s aligned segment) and
    -- levels.shortData (short wakes overlaid on data)
    select pid, day, log_id, start_ts, 'data' as source,
           {{ wag_json_struct_rows('levels', '$.data', {'dateTime': 'VARCHAR', 'level': 'VARCHAR', 'seconds': 'DOUBLE'}) }} as seg
    from one_per_day
    union all
    select pid, day, log_id, start_ts, 'short' as source,
           {{ wag_json_struct_rows('levels', '$.shortData', {'dateTime': 'VARCHAR', 'level': 'VARCHAR', 'seconds': 'DOUBLE'}) }} as seg
    from one_per_day
),

epochs as (
    -- one row per 30-s epoch of a segment (offset_s = 0, 30, ... below its length)
    select
        pid, day, log_id, start_ts, source, level,
        {{ wag_add_seconds('segment_ts', 'offset_s') }} as epoch_ts
    from (
        select
            pid, day, log_id, start_ts, source,
            lower(seg.level) as level,
            {{ wag_try_strptime("replace(substr(seg.dateTime, 1, 19), 'T', ' ')", ['%Y-%m-%d %H:%M:%S']) }} as segment_ts,
            {{ wag_range_rows(0, 'cast(round(seg.seconds) as bigint)', 30) }} as offset_s
        from segments
        where seg.seconds > 0
    ) as segment_epochs
),

asleep_epochs as (
    select pid, day, log_id, start_ts, epoch_ts
    from epochs
    where epoch_ts is not null
    group by pid, day, log_id, start_ts, epoch_ts
    having bool_or(source = 'data' and level in ('light', 'deep', 'rem', 'asleep'))
       and not bool_or(source = 'short')
),

numbered_epochs as (
    select
        *,
        row_number() over (partition by pid, log_id order by epoch_ts) as k,
        count(*) over (partition by pid, log_id) as n
    from asleep_epochs
),

asleep_midpoint as (
    -- the instant at which n/2 epochs of 30 s have been slept: inside epoch k = ceil(n/2)
    select
        pid, day,
        ({{ wag_seconds_between('start_ts', 'epoch_ts') }} + 30.0 * (n / 2.0 - (k - 1))) / 60.0 as midpoint_minutes
    from numbered_epochs
    where k = cast(ceil(n / 2.0) as bigint)
),

long as (
    select pid, day, 'sleep.timeInBed' as raw_field, time_in_bed as value from one_per_day
    union all
    select pid, day, 'sleep.minutesAsleep', minutes_asleep from one_per_day
    union all
    select pid, day, 'sleep.minutesAwake', minutes_awake from one_per_day
    union all
    select pid, day, 'sleep.efficiency', efficiency from one_per_day
    union all
    select pid, day, 'sleep.minutesToFallAsleep', minutes_to_fall_asleep from one_per_day
    union all
    select pid, day, 'sleep.minutesAfterWakeup', minutes_after_wakeup from one_per_day
    union all
    select pid, day, 'sleep.levels.deep.minutes', deep_minutes from one_per_day
    union all
    select pid, day, 'sleep.levels.light.minutes', light_minutes from one_per_day
    union all
    select pid, day, 'sleep.levels.rem.minutes', rem_minutes from one_per_day
    union all
    select pid, day, 'sleep.startTime',
           {{ wag_seconds_between('cast(day as timestamp)', 'start_ts') }} / 60.0
    from one_per_day
    union all
    select pid, day, 'sleep.endTime',
           {{ wag_seconds_between('cast(day as timestamp)', 'end_ts') }} / 60.0
    from one_per_day
    union all
    select pid, day, 'sleep.levels.asleep_midpoint', midpoint_minutes from asleep_midpoint
)

{{ wag_contract_rows('pmdata', 'long', pid_column='pid') }}
{%- else %}
{{ wag_empty_raw() }}
{%- endif %}
