-- "What affects X most", the person's side (DESIGN.md §5): X's candidate neighbours with the
-- strongest individual Spearman correlations over the subject's days <= $ref_day (|r_s|, valid ones
-- only), whatever their graph weight. Same parameters as influences.sql.
select
    w.node_y,
    w.r_s_signed,
    w.n_s
from wag_edge_weights_as_of($subject, $ref_day, [$metric],
    min_samples := $min_samples, min_pop_subjects := $min_pop_subjects, gamma_global := $gamma_global,
    alpha_prior := $alpha_prior, alpha_pop := $alpha_pop, alpha_ind := $alpha_ind) as w
where w.node_x = $metric and w.r_s_signed is not null
order by abs(w.r_s_signed) desc, w.node_y
limit $limit
