-- Individual Spearman correlations r^s_{x,y} (DESIGN.md §5): per subject, per prior edge, on the
-- subject's paired days. NULL when n < var('min_samples') or a series is constant.
-- Ranked over the integer keys of int_edge_paired_values; names joined back on the small key tables.
-- Incremental by subject (macros/incremental.sql): a build recomputes only int_changed_subjects.
{{ config(materialized=wag_incremental_materialization(), incremental_strategy='append',
          pre_hook="{{ wag_delete_changed_subjects(this) }}") }}
with paired as {{ wag_not_materialized() }} (
    select * from {{ ref('int_edge_paired_values') }}
    where {{ wag_changed_subject_filter('subject_key', 'subject_key') }}
),

rho as (
    {{ spearman('paired', ['dataset', 'subject_key', 'edge_key'],
                'value_a', 'value_b', var('min_samples')) }}
)

select
    rho.dataset,
    s.subject_id,
    e.node_a,
    e.node_b,
    cast(rho.n as integer)                                                 as n,
    rho.spearman_rho                                                       as spearman_rho_signed,
    abs(rho.spearman_rho)                                                  as spearman_rho,
    case when rho.spearman_rho is not null then {{ fisher_z('rho.spearman_rho') }} end as fisher_z,
    case when rho.spearman_rho is not null then {{ fisher_se('rho.n') }} end          as fisher_se,
    rho.null_reason
from rho
inner join {{ ref('int_subject_keys') }} as s
    on s.subject_key = rho.subject_key and s.dataset = rho.dataset
inner join {{ ref('int_edge_keys') }} as e on e.edge_key = rho.edge_key
