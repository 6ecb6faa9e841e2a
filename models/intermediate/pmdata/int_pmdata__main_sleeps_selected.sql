{#-
  PMData: one main sleep per participant and wake-up day (DESIGN.md §2 "sleep belongs to the day on which
  it ends", "main sleep for sleep summaries"; FORMATS.md §1.3, §0.4, §0.6).

  Input : stg_pmdata__sleep_logs (every log element as written, renamed and cast).
  Output: one row per (pid, day): the kept log's columns and `day`, its wake-up day.

  Rules
  * Whole-record duplicates share a logId: one row per (participant, logId) is kept.
  * Only logs with the main-sleep flag (mainSleep, or the Web API's isMainSleep) are used.
  * day = dateOfSleep, or the date of endTime when dateOfSleep is missing; an implausible day
    (issue 24, wag_plausible_days) is no day, and the log is dropped (raw_rejected lists it).
  * Should several main-sleep logs remain for one day, the longest (largest timeInBed, then highest
    logId) is kept.
-#}
with sleep_logs as (
    select * from {{ ref('stg_pmdata__sleep_logs') }}
),

deduped as (
    select *
    from sleep_logs
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
)

select * from one_per_day
