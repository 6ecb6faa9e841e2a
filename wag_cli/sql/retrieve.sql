-- Retrieval (DESIGN.md §6-§8) through the warehouse's wag_retrieve table macro: global weights as of
-- the reference day, local weights of the window, the top neighbours by $rank_by, with the prior
-- edge's description. Parameters: $subject, $metrics, $ref_day, $window_days (NULL = all), $eta and
-- the RetrievalSettings (wag_cli/settings.py) as named arguments of the macro.
select
    r.*,
    e.relationship,
    e.confidence
from wag_retrieve(
    $subject, $metrics, $ref_day, $window_days, $eta,
    kappa := $kappa, beta := $beta, gamma_local := $gamma_local,
    rank_by := $rank_by, as_of := $as_of,
    min_samples := $min_samples, min_pop_subjects := $min_pop_subjects,
    gamma_global := $gamma_global, alpha_prior := $alpha_prior,
    alpha_pop := $alpha_pop, alpha_ind := $alpha_ind
) as r
left join edges as e
    on e.node_a = least(r.primary_node, r.node_id) and e.node_b = greatest(r.primary_node, r.node_id)
where r.is_selected
order by r.primary_node, r.rank, r.node_id
