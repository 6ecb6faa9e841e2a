-- Individual Spearman correlations r^s_{x,y} (DESIGN.md §5): per subject, per prior edge, on the
-- subject's paired days. NULL when n < var('min_samples') or a series is constant.
with rho as (
    {{ spearman(ref('int_edge_paired_values'), ['dataset', 'subject_id', 'node_a', 'node_b'],
                'value_a', 'value_b', var('min_samples')) }}
)

select
    dataset,
    subject_id,
    node_a,
    node_b,
    cast(n as integer)                                          as n,
    spearman_rho                                                as spearman_rho_signed,
    abs(spearman_rho)                                           as spearman_rho,
    case when spearman_rho is not null then {{ fisher_z('spearman_rho') }} end as fisher_z,
    case when spearman_rho is not null then {{ fisher_se('n') }} end          as fisher_se,
    null_reason
from rho
