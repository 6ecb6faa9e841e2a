-- Population Spearman correlations r^pop_{x,y} (DESIGN.md §5): per dataset, per prior edge, on all
-- paired subject-days of the dataset pooled (ranks over the pooled sample). Same validity rule, and at
-- least var('min_pop_subjects') subjects contribute paired days (else NULL, 'too_few_subjects').
-- The full-history snapshot of correlations_population_snapshots (computed once there); a query with
-- reference day t uses the last snapshot <= t through wag_edge_weights_as_of (§6 "As of").
select
    dataset,
    node_a,
    node_b,
    n,
    n_subjects,
    spearman_rho_signed,
    spearman_rho,
    fisher_z,
    fisher_se,
    null_reason
from {{ ref('correlations_population_snapshots') }}
where is_full_history
