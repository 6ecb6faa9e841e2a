-- Population Spearman correlations r^pop_{x,y} at monthly snapshots (DESIGN.md §5, §6 "As of"): per
-- dataset, prior edge and snapshot day s, on the dataset's paired subject-days <= s pooled.
-- Snapshot days: every month-end before the dataset's last paired day, and that last day itself (the
-- full history, is_full_history; correlations_population is that snapshot). A query with reference
-- day t reads the last snapshot <= t (the approximation §6 allows, stated in its output as
-- pop_as_of_day), so retrieval never pools days after t and never re-ranks the population per query.
-- Validity: rho_unchecked is rho whenever both ranked series vary (NULL only with variance_reason);
-- the dbt vars' thresholds (min_samples, min_pop_subjects) give spearman_rho / null_reason here, and a
-- query with other thresholds applies them to n and n_subjects (macros spearman_checked_*).
with paired as (
    select dataset, subject_id, node_a, node_b, day, value_a, value_b
    from {{ ref('int_edge_paired_values') }}
),

dataset_last_day as (
    select dataset, max(day) as last_day
    from paired
    group by dataset
),

snapshot_days as (
    select distinct p.dataset, last_day(p.day) as snapshot_day, false as is_full_history
    from paired as p
    inner join dataset_last_day as d on d.dataset = p.dataset
    where last_day(p.day) < d.last_day
      -- var population_as_of = 'exact': retrieval pools subject-days <= t per query, only the full history is kept
      and {{ 'false' if var('population_as_of', 'snapshot') == 'exact' else 'true' }}
    union all
    select dataset, last_day as snapshot_day, true as is_full_history
    from dataset_last_day
),

snapshot_pairs as (
    select s.snapshot_day, p.dataset, p.subject_id, p.node_a, p.node_b, p.value_a, p.value_b
    from paired as p
    inner join snapshot_days as s on s.dataset = p.dataset and p.day <= s.snapshot_day
),

rho as (
    {{ spearman('snapshot_pairs', ['dataset', 'snapshot_day', 'node_a', 'node_b'],
                'value_a', 'value_b', 0, subject_col='subject_id', min_subjects=0) }}
),

checked as (
    select
        r.dataset,
        r.snapshot_day,
        s.is_full_history,
        r.node_a,
        r.node_b,
        cast(r.n as integer)          as n,
        cast(r.n_subjects as integer) as n_subjects,
        r.spearman_rho                as rho_unchecked,
        r.null_reason                 as variance_reason,
        {{ spearman_checked_reason('r.n', 'r.n_subjects', 'r.null_reason', var('min_samples'), var('min_pop_subjects')) }}
                                      as null_reason
    from rho as r
    inner join snapshot_days as s on s.dataset = r.dataset and s.snapshot_day = r.snapshot_day
)

select
    dataset,
    snapshot_day,
    is_full_history,
    node_a,
    node_b,
    n,
    n_subjects,
    rho_unchecked,
    variance_reason,
    case when null_reason is null then rho_unchecked end                        as spearman_rho_signed,
    case when null_reason is null then abs(rho_unchecked) end                   as spearman_rho,
    case when null_reason is null then {{ fisher_z('rho_unchecked') }} end      as fisher_z,
    case when null_reason is null then {{ fisher_se('n') }} end                 as fisher_se,
    null_reason
from checked
