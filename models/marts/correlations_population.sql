-- Population Spearman correlations r^pop_{x,y} (DESIGN.md §5): per dataset, per prior edge, on all
-- paired subject-days of the dataset pooled (ranks over the pooled sample). Same validity rule, and at
-- least var('min_pop_subjects') subjects contribute paired days (else NULL, 'too_few_subjects').
-- This is the full-history table; a query with reference day t uses wag_edge_weights_as_of (§6 "As of").
with rho as (
    {{ spearman(ref('int_edge_paired_values'), ['dataset', 'node_a', 'node_b'],
                'value_a', 'value_b', var('min_samples'),
                subject_col='subject_id', min_subjects=var('min_pop_subjects')) }}
)

select
    dataset,
    node_a,
    node_b,
    cast(n as integer)                                          as n,
    cast(n_subjects as integer)                                 as n_subjects,
    spearman_rho                                                as spearman_rho_signed,
    abs(spearman_rho)                                           as spearman_rho,
    case when spearman_rho is not null then {{ fisher_z('spearman_rho') }} end as fisher_z,
    case when spearman_rho is not null then {{ fisher_se('n') }} end          as fisher_se,
    null_reason
from rho
