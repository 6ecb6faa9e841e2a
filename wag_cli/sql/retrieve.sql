-- Retrieval (DESIGN.md §7-§8) through the warehouse's wag_retrieve table macro, joined to the node
-- catalog and the prior edge description. Parameters: $subject, $metrics, $ref_day, $window_days
-- (NULL = all), $eta.
select
    r.role,
    r.primary_node,
    r.node_id,
    r.rank,
    r.w_prior,
    r.w_global,
    r.fallback,
    r.zeta,
    r.n_window_days,
    r.w_local,
    r.w_final,
    r.reason,
    ew.r_s_signed,
    ew.n_s,
    ew.r_pop_signed,
    ew.n_pop,
    e.relationship,
    e.confidence
from wag_retrieve($subject, $metrics, $ref_day, $window_days, $eta) as r
left join edge_weights as ew
    on ew.subject_id = $subject and ew.node_x = r.primary_node and ew.node_y = r.node_id
left join edges as e
    on e.node_a = least(r.primary_node, r.node_id) and e.node_b = greatest(r.primary_node, r.node_id)
order by r.primary_node, r.rank, r.node_id
