{% macro wag_analyst_node_window(schema) -%}
{#-
  The statement creating the DuckDB table macro <schema>.wag_node_window (installed by
  macros/analyst/_install.sql, create_wag_retrieve).

  wag_node_window(subject, ref_day, window_days, min_coverage := var('min_window_coverage')): one row per
  metric the subject has up to ref_day, with the usual level (mean, sample sd over every day <= ref_day:
  no look-ahead), its last day with data up to ref_day (last_day), the window
  [ref_day - window_days + 1, ref_day] (NULL = every day <= ref_day): days with data, mean, min, max and
  their days (window_min_day / window_max_day, the earliest of tied days), zeta = the window's mean
  abnormality score (DESIGN.md §4, §7; the per-day score is macro wag_abnormality_z, as in
  daily_abnormality and eval_query_tuples), the baseline before the window, and the daily values. It is
  the single definition of the window statistics, used by wag_retrieve and by the CLI.
  Coverage (issue 9 item 7): n_window_calendar_days = days in the window (for 'all': the subject's
  first day of the metric .. ref_day); window_coverage = n_window_days / n_window_calendar_days;
  expected_window_days = n_window_calendar_days x the subject's own cadence for the metric (days with
  data / calendar days of its history up to ref_day, so a weekly survey expects 1 day in 7);
  window_coverage_vs_usual = min(1, n_window_days / expected_window_days). Below min_coverage on that
  measure, window_mean, window_dev_sd, window_min, window_max and zeta are NULL: one observed day in a
  30-day window is not a 30-day mean. n_window_days and daily are always given.
-#}
{%- set sql -%}
create or replace macro {{ schema }}.wag_node_window(subject, ref_day, window_days,
    min_coverage := {{ var('min_window_coverage', 0.5) }}) as table
with
history as (
    select v.metric_id, v.day, v.value, v.value_text
    from metric_values as v
    where v.subject_id = subject and v.day <= ref_day
),
usual as (
    select metric_id, avg(value) as usual_mean, stddev_samp(value) as usual_sd,
           count(value) as n_history_days, max(day) as last_day,
           date_diff('day', min(day), ref_day) + 1 as n_history_calendar_days
    from history
    group by metric_id
),
baseline as (
    -- the subject's days before the window (what a window is compared with in answers, §8 step 4)
    select metric_id, avg(value) as baseline_mean, stddev_samp(value) as baseline_sd,
           count(value) as n_baseline_days
    from history
    where window_days is not null and date_diff('day', day, ref_day) >= window_days
    group by metric_id
),
in_window as (
    select
        h.*,
        {{ wag_abnormality_z('h.value', 'u.usual_mean', 'u.usual_sd') }} as z
    from history as h
    inner join usual as u using (metric_id)
    where window_days is null or date_diff('day', h.day, ref_day) < window_days
),
window_stats as (
    select
        u.metric_id, u.n_history_days, u.usual_mean, u.usual_sd, u.last_day,
        b.baseline_mean, b.baseline_sd, b.n_baseline_days,
        coalesce(window_days, u.n_history_calendar_days) as n_window_calendar_days,
        coalesce(window_days, u.n_history_calendar_days) * u.n_history_days / u.n_history_calendar_days
            as expected_window_days,
        count(w.day) as n_window_days,
        avg(w.value) as window_mean,
        min(w.value) as window_min,
        max(w.value) as window_max,
        -- the day of the window's lowest / highest value (the earliest of tied days)
        arg_min(w.day, (w.value, w.day)) as window_min_day,
        arg_max(w.day, (w.value, -date_diff('day', date '1970-01-01', w.day))) as window_max_day,
        avg(w.z)     as zeta,
        list({'day': w.day, 'value': w.value, 'value_text': w.value_text, 'z': w.z} order by w.day)
            filter (where w.day is not null) as daily
    from usual as u
    left join baseline as b using (metric_id)
    left join in_window as w using (metric_id)
    group by u.metric_id, u.n_history_days, u.usual_mean, u.usual_sd, u.last_day, u.n_history_calendar_days,
             b.baseline_mean, b.baseline_sd, b.n_baseline_days
),
covered as (
    select *,
           n_window_days / n_window_calendar_days as window_coverage,
           case when expected_window_days > 0 then least(1.0, n_window_days / expected_window_days) end
               as window_coverage_vs_usual,
           coalesce(expected_window_days > 0 and n_window_days / expected_window_days >= min_coverage, false)
               as is_covered
    from window_stats
)
select
    metric_id,
    n_history_days,
    usual_mean,
    usual_sd,
    last_day,
    baseline_mean,
    baseline_sd,
    coalesce(n_baseline_days, 0) as n_baseline_days,
    n_window_days,
    case when is_covered then window_mean end as window_mean,
    -- window mean against the usual level, in usual standard deviations (NULL when sd is 0/undefined)
    case when is_covered and usual_sd > 0 then (window_mean - usual_mean) / usual_sd end as window_dev_sd,
    -- the same against the days before the window (what answers compare a period with), >= 2 days
    case when is_covered and n_baseline_days >= 2 and baseline_sd > 0
         then (window_mean - baseline_mean) / baseline_sd end as baseline_dev_sd,
    case when is_covered then window_min end as window_min,
    case when is_covered then window_max end as window_max,
    case when is_covered then window_min_day end as window_min_day,
    case when is_covered then window_max_day end as window_max_day,
    case when is_covered then zeta end as zeta,
    daily,
    n_window_calendar_days,
    expected_window_days,
    window_coverage,
    window_coverage_vs_usual
from covered;
{%- endset -%}
{{ return(sql) }}
{%- endmacro %}
