-- Reference values for the rubric judge's Groundedness rule (DESIGN.md §10; §4, §7 for the window
-- statistics). An independent recomputation from metric_values on purpose: a judge that reused the
-- answerer's wag_node_window could not catch that macro's errors.
-- Both baselines are given: the usual level over every day <= t^q (§7) and the usual level before the
-- window (days <= t^q - k^q), which the answers show as "your usual level before this period".
-- Parameters: $subject (subject_id), $ref_day (DATE, t^q), $window_days (INTEGER; NULL = every day
-- <= t^q), $metrics (VARCHAR[]: the query's metrics and the nodes the answer was given).
-- Output: one row per (metric_id, other_id, what, value); `what` names the statistic; other_id is the
-- edge's other node for edge statistics (NULL otherwise). Only days <= t^q are used.
with nodes_given as (
    select n.metric_id, n.unit, n.description, n.normal_range, n.recommendations
    from nodes as n
    where list_contains($metrics, n.metric_id)
),

history as (
    select v.metric_id, v.day, v.value
    from metric_values as v
    where v.subject_id = $subject
      and v.day <= $ref_day
      and v.value is not null
      and list_contains($metrics, v.metric_id)
),

usual as (
    select metric_id, avg(value) as usual_mean, stddev_samp(value) as usual_sd, count(*) as n_history
    from history
    group by metric_id
),

usual_before as (
    -- the baseline before the window (days <= t^q - k^q), which answers may quote as "usual level
    -- before this period"; none for the window all
    select metric_id, avg(value) as usual_mean, stddev_samp(value) as usual_sd, count(*) as n_history
    from history
    where $window_days is not null and date_diff('day', day, $ref_day) >= $window_days
    group by metric_id
),

windowed as (
    select
        h.metric_id,
        h.day,
        h.value,
        case when u.usual_sd > 0 then (h.value - u.usual_mean) / u.usual_sd end as z
    from history as h
    inner join usual as u using (metric_id)
    where $window_days is null or date_diff('day', h.day, $ref_day) < $window_days
),

window_stats as (
    select
        w.metric_id,
        avg(w.value)    as window_mean,
        min(w.value)    as window_min,
        max(w.value)    as window_max,
        sum(w.value)    as window_sum,
        count(*)        as n_window,
        avg(abs(w.z))   as zeta,
        any_value(u.usual_mean) as usual_mean,
        any_value(u.usual_sd)   as usual_sd
    from windowed as w
    inner join usual as u using (metric_id)
    group by w.metric_id
),

data_values as (
    select metric_id, 'daily_value' as what, value from windowed
    union all select metric_id, 'daily_z', z from windowed where z is not null
    union all
    select w.metric_id, 'daily_z_before', (w.value - b.usual_mean) / b.usual_sd
    from windowed as w inner join usual_before as b using (metric_id) where b.usual_sd > 0
    union all select metric_id, 'usual_mean_before', usual_mean from usual_before
    union all select metric_id, 'usual_sd_before', usual_sd from usual_before where usual_sd is not null
    union all select metric_id, 'n_history_days_before', n_history from usual_before
    union all
    select s.metric_id, 'window_minus_usual_before', s.window_mean - b.usual_mean
    from window_stats as s inner join usual_before as b using (metric_id)
    union all
    select s.metric_id, 'window_dev_sd_before', (s.window_mean - b.usual_mean) / b.usual_sd
    from window_stats as s inner join usual_before as b using (metric_id) where b.usual_sd > 0
    union all select metric_id, 'usual_mean', usual_mean from usual
    union all select metric_id, 'usual_sd', usual_sd from usual where usual_sd is not null
    union all select metric_id, 'n_history_days', n_history from usual
    union all select metric_id, 'window_mean', window_mean from window_stats
    union all select metric_id, 'window_min', window_min from window_stats
    union all select metric_id, 'window_max', window_max from window_stats
    union all select metric_id, 'window_sum', window_sum from window_stats
    union all select metric_id, 'n_window_days', n_window from window_stats
    union all select metric_id, 'zeta', zeta from window_stats where zeta is not null
    union all select metric_id, 'window_minus_usual', window_mean - usual_mean from window_stats
    union all
    select metric_id, 'window_dev_sd', (window_mean - usual_mean) / usual_sd
    from window_stats where usual_sd > 0
    union all
    select metric_id, 'window_vs_usual_pct', 100 * (window_mean - usual_mean) / abs(usual_mean)
    from window_stats where abs(usual_mean) > 1e-9
),

converted as (
    -- the same values in the units an answer may use: minutes as hours; clock metrics (minutes from
    -- midnight of the wake-up day) as minutes after midnight, i.e. the HH:MM an answer prints
    select d.metric_id, d.what || '_hours' as what, d.value / 60 as value
    from data_values as d
    inner join nodes_given as n using (metric_id)
    where n.unit = 'minutes' and d.what not in ('daily_z', 'daily_z_before', 'n_history_days',
                                                 'n_history_days_before', 'n_window_days', 'zeta',
                                                 'window_dev_sd', 'window_dev_sd_before', 'window_vs_usual_pct')
    union all
    select d.metric_id, d.what || '_clock', ((d.value % 1440) + 1440) % 1440
    from data_values as d
    inner join nodes_given as n using (metric_id)
    where n.unit like 'minutes from%' and d.what in ('daily_value', 'usual_mean', 'usual_mean_before',
                                                      'window_mean', 'window_min', 'window_max')
),

edge_values as (
    -- stored edge statistics between the given nodes (edge_weights, DESIGN.md §5-§6)
    select e.node_y as metric_id, e.node_x as other_id, 'edge_' || k.what as what, k.value
    from edge_weights as e,
         lateral (
             select * from (values
                 ('w_prior', e.w_prior), ('w_global', e.w_global), ('r_s', e.r_s_signed),
                 ('n_s', cast(e.n_s as double)), ('r_pop', e.r_pop_signed), ('n_pop', cast(e.n_pop as double)),
                 ('p_prior', e.p_prior), ('o_pop', e.o_pop), ('i_ind', e.i_ind),
                 ('mu_pop', e.mu_pop), ('mu_s', e.mu_s)
             ) as t(what, value)
         ) as k
    where e.subject_id = $subject
      and list_contains($metrics, e.node_x)
      and list_contains($metrics, e.node_y)
      and k.value is not null
),

catalog_texts as (
    -- numbers quoted from the graph's knowledge (node texts, edge relationship texts, §9)
    select metric_id, description as text from nodes_given
    union all select metric_id, normal_range from nodes_given
    union all select metric_id, recommendations from nodes_given
    union all
    select g.node_a, g.relationship
    from edges as g
    where list_contains($metrics, g.node_a) and list_contains($metrics, g.node_b)
),

catalog_values as (
    select metric_id, 'catalog_text' as what,
           try_cast(replace(unnest(regexp_extract_all(text, '[0-9][0-9,]*(?:\.[0-9]+)?')), ',', '') as double) as value
    from catalog_texts
    where text is not null
)

select metric_id, null as other_id, what, value from data_values where value is not null
union all select metric_id, null, what, value from converted where value is not null
union all select metric_id, other_id, what, value from edge_values
union all select metric_id, null, what, value from catalog_values where value is not null
union all select null, null, 'window_days', cast($window_days as double) where $window_days is not null
