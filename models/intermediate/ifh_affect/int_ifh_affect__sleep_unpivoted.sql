{#-
  IFH Affect Oura nightly sleep summaries -> staging contract rows (DESIGN.md §2, FORMATS.md §4.2, §5).
  Listed in wag_staging_models (macros/staging_models.sql).

  Input : stg_ifh_affect__sleep_nights (one row per row of <data_dir>/ifh_affect/par_<n>/oura/sleep.csv,
          renamed and cast; an empty cell, `null` or an unreadable cell is NULL = missing = no row; a row
          without a readable date gives nothing).
  Subject: 'ifh_affect:par_<n>' from the folder name.
  Day   : `date` = local date of bedtime_end = the wake-up day (FORMATS.md §4.2, DESIGN.md §2).
  Output (value in the RAW unit; raw_field_map_ifh_affect converts):
    sleep.duration, sleep.total, sleep.awake, sleep.light, sleep.rem, sleep.deep, sleep.onset_latency,
    sleep.midpoint_time (from bedtime start)                                     seconds
    sleep.bedtime_start, sleep.bedtime_end   seconds relative to local midnight at the start of `day`
                                             (the *_midnight_delta columns; negative = evening before)
    sleep.efficiency (%), sleep.score (0..100), sleep.hr_lowest, sleep.hr_average (bpm),
    sleep.rmssd (ms), sleep.breath_average (breaths/min), sleep.temperature_delta (°C deviation)
  Rules:
    * one row per night is what the files hold; should a participant-day repeat, the longest `duration`
      (the main sleep) is kept (DESIGN.md §2 "main sleep for sleep summaries");
    * 0 is missing for hr_lowest, hr_average, rmssd, breath_average, duration, total, efficiency, score
      (Oura writes 0 for "no reading", FORMATS.md §0.5); stage seconds and onset_latency keep real 0s;
    * bedtime interval: when end_delta - start_delta = duration the deltas are used as written. On the
      rows where they disagree by exactly one day (par_3: 2020-06-30, 07-28, 08-09, 08-22; FORMATS.md
      §4.2) the end that falls on `day` is trusted and the other end recomputed from `duration`:
      end_delta in [0, 86400) -> start = end_delta - duration; otherwise start_delta is kept and
      end = start_delta + duration (must then be in [0, 86400)); if neither holds, no bedtime rows.
      Stage and duration columns are consistent on those rows and are kept.
    * hr_average is the mean of the night's non-zero 5-min HR, i.e. the daily mean of heart_rate.csv
      (FORMATS.md §4.2, §4.4); the seed maps it to `heart_rate` with a note that it is sleep-only (lower
      than the whole-day mean other datasets give), so heart_rate.csv itself need not be read.
-#}
with sleep_nights as (
    select * from {{ ref('stg_ifh_affect__sleep_nights') }}
),

main_sleep as (
    select *
    from sleep_nights
    where day is not null and subject_id <> 'ifh_affect:'
    qualify row_number() over (
        partition by subject_id, day
        order by duration desc nulls last, start_ts
    ) = 1
),

bedtimes as (
    select
        *,
        case
            when end_delta - start_delta = duration then start_delta
            when end_delta >= 0 and end_delta < 86400 then end_delta - duration
            when start_delta + duration >= 0 and start_delta + duration < 86400 then start_delta
        end as bedtime_start,
        case
            when end_delta - start_delta = duration then end_delta
            when end_delta >= 0 and end_delta < 86400 then end_delta
            when start_delta + duration >= 0 and start_delta + duration < 86400 then start_delta + duration
        end as bedtime_end
    from main_sleep
),

wide as (
    select
        subject_id,
        day,
        nullif(duration, 0)         as {{ wag_q('sleep.duration') }},
        nullif(total, 0)            as {{ wag_q('sleep.total') }},
        awake                       as {{ wag_q('sleep.awake') }},
        light                       as {{ wag_q('sleep.light') }},
        rem                         as {{ wag_q('sleep.rem') }},
        deep                        as {{ wag_q('sleep.deep') }},
        onset_latency               as {{ wag_q('sleep.onset_latency') }},
        midpoint_time               as {{ wag_q('sleep.midpoint_time') }},
        bedtime_start               as {{ wag_q('sleep.bedtime_start') }},
        bedtime_end                 as {{ wag_q('sleep.bedtime_end') }},
        nullif(efficiency, 0)       as {{ wag_q('sleep.efficiency') }},
        nullif(score, 0)            as {{ wag_q('sleep.score') }},
        nullif(hr_lowest, 0)        as {{ wag_q('sleep.hr_lowest') }},
        nullif(hr_average, 0)       as {{ wag_q('sleep.hr_average') }},
        nullif(rmssd, 0)            as {{ wag_q('sleep.rmssd') }},
        nullif(breath_average, 0)   as {{ wag_q('sleep.breath_average') }},
        temperature_delta           as {{ wag_q('sleep.temperature_delta') }}
    from bedtimes
),

-- UNPIVOT drops NULL cells: missing = no row.
long as (
    {{ wag_unpivot('wide', ['sleep.duration', 'sleep.total', 'sleep.awake', 'sleep.light', 'sleep.rem', 'sleep.deep', 'sleep.onset_latency', 'sleep.midpoint_time', 'sleep.bedtime_start', 'sleep.bedtime_end', 'sleep.efficiency', 'sleep.score', 'sleep.hr_lowest', 'sleep.hr_average', 'sleep.rmssd', 'sleep.breath_average', 'sleep.temperature_delta'], 'raw_field', 'value') }}
)

{{ wag_contract_rows('ifh_affect', 'long') }}
