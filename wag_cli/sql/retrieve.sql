-- Retrieval (DESIGN.md §7-§8) through the warehouse's wag_retrieve table macro (every weight column
-- of the selected edges), with the prior edge's description. Parameters: $subject, $metrics,
-- $ref_day, $window_days (NULL = all), $eta.
select
    r.*,
    e.relationship,
    e.confidence
from wag_retrieve($subject, $metrics, $ref_day, $window_days, $eta) as r
left join edges as e
    on e.node_a = least(r.primary_node, r.node_id) and e.node_b = greatest(r.primary_node, r.node_id)
where r.is_selected
order by r.primary_node, r.rank, r.node_id
