-- Local and fused weights of the query's neighbourhoods (DESIGN.md §7), for the rubric judge's
-- Groundedness rule: an answer may quote w_local / w_final, which no table stores. Uses the
-- warehouse's table macro wag_retrieve with every candidate (include_unselected).
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
