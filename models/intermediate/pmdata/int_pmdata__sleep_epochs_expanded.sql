{#-
  PMData: the asleep 30-second epochs of each kept main sleep, expanded from its hypnogram (DESIGN.md §2;
  FORMATS.md §1.3, §0.11).

  Input : int_pmdata__main_sleeps_selected (one main sleep per participant and wake-up day, with its
          `levels` JSON).
  Output: one row per asleep 30-s epoch of a kept log: pid, day, log_id, start_ts (the log's start),
          epoch_ts, k = the epoch's position in the night (1..n) and n = the night's asleep epochs.

  Rules
  * levels.data holds the stage of every 30-s aligned segment, levels.shortData the short wakes
    (<= 3 min) overlaid on it; a segment of `seconds` expands to epochs at offsets 0, 30, ... below it.
  * An epoch is asleep when its level is light/deep/rem (stages logs) or asleep (classic logs) and no
    shortData wake covers it. These epochs reproduce minutesAsleep to within +-0.5 min on 95 % of the
    excerpt's main-sleep logs (max 3.5 min).
  * Times are naive local wall clock (the DST night is not corrected). A log without levels.data has
    no epochs.
-#}
with main_sleeps as (
    select * from {{ ref('int_pmdata__main_sleeps_selected') }}
),

segments as (
    -- hypnogram segments of the kept logs: levels.data (stage of every 30-s aligned segment) and
    -- levels.shortData (short wakes overlaid on data)
    select pid, day, log_id, start_ts, 'data' as source,
           {{ wag_json_struct_rows('levels', '$.data', {'dateTime': 'VARCHAR', 'level': 'VARCHAR', 'seconds': 'DOUBLE'}) }} as seg
    from main_sleeps
    union all
    select pid, day, log_id, start_ts, 'short' as source,
           {{ wag_json_struct_rows('levels', '$.shortData', {'dateTime': 'VARCHAR', 'level': 'VARCHAR', 'seconds': 'DOUBLE'}) }} as seg
    from main_sleeps
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
)

select * from numbered_epochs
