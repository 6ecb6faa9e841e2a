-- Weights of the query's neighbourhoods as the conditions were given them, for the rubric judge's
-- Groundedness rule: w_local / w_final (DESIGN.md §7), which no table stores, and the as-of edge
-- statistics (§6 "As of": correlations over days <= t^q, which differ from the full-history
-- edge_weights). Uses the warehouse's table macro wag_retrieve with every candidate (include_unselected).
-- Parameters: $subject, $metrics (the query's metrics, VARCHAR[]), $ref_day (DATE), $window_days
-- (INTEGER or NULL), $eta (DOUBLE in [0, 1]). Output: metric_id, other_id, what, value.
with r as (
    select *
    from wag_retrieve($subject, $metrics, $ref_day, $window_days, $eta, include_unselected := true)
    where role = 'neighbour'
)

select node_id as metric_id, primary_node as other_id, 'edge_w_local' as what, w_local as value
from r where w_local is not null
union all
select node_id, primary_node, 'edge_w_final', w_final from r where w_final is not null
union all
select r.node_id, r.primary_node, 'edge_' || k.what, k.value
from r,
     lateral (
         select * from (values
             ('w_prior', r.w_prior), ('w_global', r.w_global), ('r_s', r.r_s_signed), ('n_s', cast(r.n_s as double)),
             ('r_pop', r.r_pop_signed), ('n_pop', cast(r.n_pop as double)), ('mu_pop', r.mu_pop), ('mu_s', r.mu_s)
         ) as t(what, value)
     ) as k
where k.value is not null
