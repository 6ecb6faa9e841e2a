-- One edge's weight stages for a subject (DESIGN.md §6-§7), as of a reference day: the row of the
-- warehouse's wag_retrieve macro for neighbour $node_y of primary $node_x with every candidate kept
-- (include_unselected), so the prior, population, individual and local stages are shown whether or
-- not retrieval would choose the edge. Parameters as sql/retrieve.sql, plus $node_y.
select
    r.*,
    e.relationship,
    e.confidence
from wag_retrieve(
    $subject, [$node_x], $ref_day, $window_days, $eta,
    kappa := $kappa, beta := $beta, gamma_local := $gamma_local,
    rank_by := $rank_by, as_of := $as_of,
    min_samples := $min_samples, min_pop_subjects := $min_pop_subjects,
    gamma_global := $gamma_global, alpha_prior := $alpha_prior,
    alpha_pop := $alpha_pop, alpha_ind := $alpha_ind,
    include_unselected := true
) as r
left join edges as e
    on e.node_a = least(r.primary_node, r.node_id) and e.node_b = greatest(r.primary_node, r.node_id)
where r.role = 'neighbour' and r.primary_node = $node_x and r.node_id = $node_y
