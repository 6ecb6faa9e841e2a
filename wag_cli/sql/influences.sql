-- "What affects X most" (DESIGN.md §6, §8): X's candidate neighbours for the subject ranked by the
-- as-of global weight W_global (days <= $ref_day only, wag_edge_weights_as_of), with their own and
-- population correlations. Parameters: $subject, $ref_day (DATE), $metric (VARCHAR), $limit (INTEGER)
-- and the weight settings ($min_samples, ... $alpha_ind; RetrievalSettings.weight_params).
select
    w.node_y,
    w.w_global,
    w.fallback,
    w.w_prior,
    w.r_s_signed,
    w.n_s,
    w.r_s_reason,
    w.r_pop_signed,
    w.n_pop,
    w.n_pop_subjects,
    w.r_pop_reason,
    w.pop_as_of_day,
    e.relationship
from wag_edge_weights_as_of($subject, $ref_day, [$metric],
    min_samples := $min_samples, min_pop_subjects := $min_pop_subjects, gamma_global := $gamma_global,
    alpha_prior := $alpha_prior, alpha_pop := $alpha_pop, alpha_ind := $alpha_ind) as w
left join edges as e
    on e.node_a = least(w.node_x, w.node_y) and e.node_b = greatest(w.node_x, w.node_y)
where w.node_x = $metric
order by w.w_global desc, w.node_y
limit $limit
