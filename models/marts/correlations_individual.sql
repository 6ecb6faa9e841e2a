-- Individual Spearman correlations r^s_{x,y} (DESIGN.md §5): per subject, per prior edge, on the
-- subject's paired days. NULL when n < var('min_samples') or a series is constant.
-- Method (macros/corrected_ranks.sql, issue 31): each (subject, metric) series of int_metric_series
-- is ranked once over the subject's days; on a common day d of x and y the pair's average rank is
--     rank_C(d) = rank_Dx(d) - #{m in D_x \ D_y: x_m < x_d} - 1/2 #{m in D_x \ D_y: x_m = x_d}
-- (the partner's missing days, counted by bit-field running sums in the same sort), and the Pearson
-- sums of the corrected ranks are accumulated over the common days in one hash join + aggregate: no
-- paired table, no sort per pair. Names joined back on the small key tables.
-- Incremental by subject (macros/incremental.sql): a build recomputes only int_changed_subjects.
-- Build order (issue 31): correlations_individual, then correlations_population_snapshots, then
-- daily_abnormality beside subject_summary, by ordering edges (the depends_on comments in those
-- models; nothing is read through them, and their unit tests give those refs empty inputs). dbt's
-- second thread meanwhile runs the small models and data tests. Left to dbt, the correlation models
-- ran beside daily_abnormality and each other, sharing the two cores and DuckDB's 3 GB: at 500
-- subjects their in-build time was 19-22 s against 14-17 s in this order, the build's peak RSS
-- 3.1-3.2 GB against 2.1 GB, and the build's wall time the same within the host's noise
-- (bench/RESULTS.md, issue 31 fifth pass).
{{ config(materialized=wag_incremental_materialization(), incremental_strategy='append',
          pre_hook="{{ wag_delete_changed_subjects(this) }}") }}
with rho as (
    {{ wag_edge_spearman(ref('int_metric_series'), 'individual',
                         wag_changed_subject_filter('subject_key', 'subject_key')) }}
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
