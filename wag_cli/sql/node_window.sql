-- The subject's data for a set of nodes around a reference day (DESIGN.md §8 step 4), from the
-- warehouse's wag_node_window table macro (the one definition of usual level, window and zeta).
-- Parameters: $subject, $metrics (VARCHAR[]), $ref_day (DATE), $window_days (INTEGER, NULL = all).
-- One row per metric in $metrics, also when it has no data (n_window_days = 0).
select
    m.metric_id,
    coalesce(w.n_history_days, 0) as n_history_days,
    w.usual_mean,
    w.usual_sd,
    w.last_day,
    w.baseline_mean,
    w.baseline_sd,
    coalesce(w.n_baseline_days, 0) as n_baseline_days,
    coalesce(w.n_window_days, 0)  as n_window_days,
    w.window_mean,
    w.window_dev_sd,
    w.baseline_dev_sd,
    w.window_min,
    w.window_max,
    w.window_min_day,
    w.window_max_day,
    w.zeta,
    w.daily,
    w.window_coverage_vs_usual
from (select distinct unnest($metrics) as metric_id) as m
left join wag_node_window($subject, $ref_day, $window_days) as w using (metric_id)
order by m.metric_id
