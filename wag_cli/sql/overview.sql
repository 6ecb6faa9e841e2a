-- "How am I doing overall?" (DESIGN.md §8, Exploratory Analysis at the highest openness): the
-- subject's most abnormal metrics of the window across categories, by zeta of wag_node_window
-- (mean |v - mu| / sd over the window's days, mu and sd over days <= $ref_day). The most abnormal
-- metric of each node category is picked first, then the categories' runners-up (shown by zeta, most
-- unusual first); numeric metrics with
-- data in the window and variation only; Demographic traits excluded.
-- Parameters: $subject, $ref_day (DATE), $window_days (INTEGER, NULL = all), $limit (INTEGER).
with
w as (
    select w.metric_id, w.zeta, w.n_window_days, n.category
    from wag_node_window($subject, $ref_day, $window_days) as w
    inner join nodes as n using (metric_id)
    where w.zeta is not null and w.n_window_days > 0 and w.usual_sd > 0
      and n.data_kind = 'numeric' and n.category <> 'Demographic'
),
ranked as (
    select *, row_number() over (partition by category order by zeta desc, metric_id) as rank_in_category
    from w
),
picked as (
    -- the most abnormal metric of each category first, then the runners-up, up to $limit ...
    select metric_id, category, zeta, n_window_days, rank_in_category
    from ranked
    order by rank_in_category, zeta desc, metric_id
    limit $limit
)
-- ... shown most unusual first
select * from picked
order by zeta desc, metric_id
