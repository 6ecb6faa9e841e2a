-- The subject's own and the population's correlation of every pair of the question's metrics,
-- as of the reference day (DESIGN.md §5, §6 "As of"): one row per unordered pair (a before b in
-- question order), read from the warehouse's wag_edge_weights_as_of table macro (days <= $ref_day
-- only), with why a correlation is missing. Parameters: $subject, $ref_day (DATE), $metrics (VARCHAR[]).
-- Columns: node_x, node_y, has_edge, w_prior, relationship, r_s_signed, n_s, r_s_reason, r_pop_signed,
-- n_pop, n_pop_subjects, r_pop_reason, w_global, and per metric the days with a value and distinct
-- values up to $ref_day (x_days, x_distinct, y_days, y_distinct: the reason a pair has no
-- as-of row, since C_s(x) drops metrics without data or variation).
with
asked as (
    select m as metric_id, i
    from (select unnest($metrics) as m, generate_subscripts($metrics, 1) as i)
),
pairs as (
    select a.metric_id as node_x, b.metric_id as node_y
    from asked as a
    inner join asked as b on a.i < b.i and a.metric_id <> b.metric_id
),
weights as (
    select * from wag_edge_weights_as_of($subject, $ref_day, $metrics,
        min_samples := $min_samples, min_pop_subjects := $min_pop_subjects, gamma_global := $gamma_global,
        alpha_prior := $alpha_prior, alpha_pop := $alpha_pop, alpha_ind := $alpha_ind)
),
support as (
    select metric_id, count(value) as n_days, count(distinct value) as n_distinct
    from metric_values
    where subject_id = $subject and day <= $ref_day and metric_id in (select metric_id from asked)
    group by metric_id
)
select
    p.node_x,
    p.node_y,
    e.node_a is not null              as has_edge,
    e.w_prior,
    e.relationship,
    w.r_s_signed,
    w.n_s,
    w.r_s_reason,
    w.r_pop_signed,
    w.n_pop,
    w.n_pop_subjects,
    w.r_pop_reason,
    w.pop_as_of_day,
    w.pop_source,
    w.w_global,
    coalesce(sx.n_days, 0)            as x_days,
    coalesce(sx.n_distinct, 0)        as x_distinct,
    coalesce(sy.n_days, 0)            as y_days,
    coalesce(sy.n_distinct, 0)        as y_distinct
from pairs as p
left join edges as e
    on e.node_a = least(p.node_x, p.node_y) and e.node_b = greatest(p.node_x, p.node_y)
left join weights as w on w.node_x = p.node_x and w.node_y = p.node_y
left join support as sx on sx.metric_id = p.node_x
left join support as sy on sy.metric_id = p.node_y
order by p.node_x, p.node_y
