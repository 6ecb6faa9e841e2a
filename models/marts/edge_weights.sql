-- Global edge weights, full history: the closed-form diagonal hierarchical Bayesian model
-- (DESIGN.md §6, macro wag_hbm) "as of each subject's last day". A query with an earlier reference
-- day t uses the table macro wag_edge_weights_as_of(subject, t, nodes) instead (§6 "As of"), which
-- runs the same wag_hbm on correlations over days <= t.
-- Grain: one row per (dataset, subject_id, node_x, node_y) for every y in C_s(x), where
--   C_s(x) = metrics that share a prior edge with x and that the subject recorded with variation
--   (at least two distinct values), x excluded (§6).
-- x ranges over every catalog node, so a question about a metric without data still has neighbours.
with metric_values as (
    select * from {{ ref('metric_values') }}
),

edges as (
    select * from {{ ref('edges') }}
),

correlations_population as (
    select * from {{ ref('correlations_population') }}
),

correlations_individual as (
    select * from {{ ref('correlations_individual') }}
),

varying_metrics as (
    -- C_s(x) membership: the subject has at least two distinct values of the metric
    select dataset, subject_id, metric_id
    from metric_values
    where value is not null
    group by dataset, subject_id, metric_id
    having count(distinct value) >= 2
),

directed_edges as (
    select node_a as node_x, node_b as node_y, w_prior from edges
    union all
    select node_b as node_x, node_a as node_y, w_prior from edges
),

candidates as (
    select v.dataset, v.subject_id, e.node_x, e.node_y, e.w_prior
    from varying_metrics as v
    inner join directed_edges as e on e.node_y = v.metric_id
),

observed as (
    select
        c.*,
        pop.spearman_rho         as r_pop,
        pop.spearman_rho_signed  as r_pop_signed,
        coalesce(pop.n, 0)       as n_pop,
        pop.n_subjects           as n_pop_subjects,
        pop.fisher_z             as fz_pop,
        pop.fisher_se            as se_pop,
        coalesce(pop.null_reason, case when pop.n is null then 'n_below_min' end) as r_pop_reason,
        ind.spearman_rho         as r_s,
        ind.spearman_rho_signed  as r_s_signed,
        coalesce(ind.n, 0)       as n_s,
        ind.fisher_z             as fz_s,
        ind.fisher_se            as se_s,
        coalesce(ind.null_reason, case when ind.n is null then 'n_below_min' end) as r_s_reason
    from candidates as c
    left join correlations_population as pop
        on pop.dataset = c.dataset
       and pop.node_a = least(c.node_x, c.node_y) and pop.node_b = greatest(c.node_x, c.node_y)
    left join correlations_individual as ind
        on ind.dataset = c.dataset and ind.subject_id = c.subject_id
       and ind.node_a = least(c.node_x, c.node_y) and ind.node_b = greatest(c.node_x, c.node_y)
),

weights as (
    {{ wag_hbm('observed', ['dataset', 'subject_id', 'node_x'],
               var('gamma_global'), var('alpha_prior'), var('alpha_pop'), var('alpha_ind')) }}
)

select
    dataset,
    subject_id,
    node_x,
    node_y,
    w_prior,
    r_pop,
    r_pop_signed,
    cast(n_pop as integer) as n_pop,
    cast(n_pop_subjects as integer) as n_pop_subjects,
    fz_pop,
    se_pop,
    r_pop_reason,
    r_s,
    r_s_signed,
    cast(n_s as integer) as n_s,
    fz_s,
    se_s,
    r_s_reason,
    p_prior,
    o_pop,
    i_ind,
    v_pop,
    u_ind,
    q_prior,
    mu_pop,
    sigma_pop,
    mu_s,
    sigma_s,
    w_global,
    fallback,
    w_pop_ablation,
    w_ind_ablation
from weights
-- ordered by subject so that the per-subject read of wag_retrieve (stored weights when t is at or after
-- the subject's last day) skips row groups: unordered, every row group spanned all subjects and the
-- read scanned the 2.4 M rows of 2,000 subjects (9.8 of 50 ms per call, bench/RESULTS.md ninth session)
order by dataset, subject_id
