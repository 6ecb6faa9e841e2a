-- Global edge weights, full history: the closed-form diagonal hierarchical Bayesian model
-- (DESIGN.md §6, macro wag_hbm) "as of each subject's last day". A query with an earlier reference
-- day t uses the table macro wag_edge_weights_as_of(subject, t, nodes) instead (§6 "As of"), which
-- runs the same wag_hbm on correlations over days <= t.
-- Grain: one row per (dataset, subject_id, node_x, node_y) for every y in C_s(x), where
--   C_s(x) = metrics that share a prior edge with x and that the subject recorded with variation
--   (at least two distinct values), x excluded (§6).
-- x ranges over every catalog node, so a question about a metric without data still has neighbours.
-- Small cohorts (§6, 2026-12-06): a pair whose own dataset has fewer than var min_pop_subjects
-- subjects with paired days takes its population evidence from correlations_reference_population (the
-- other datasets' fixed-effect meta-analysis; pop_source says which datasets), and where no candidate
-- has population evidence the HBM takes its prior variance from the individual stage (wag_hbm).
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

correlations_reference as (
    select * from {{ ref('correlations_reference_population') }}
),

varying_metrics as (
    -- C_s(x) membership: the subject has at least two distinct values of the metric (min < max: one
    -- group per series, not one per distinct value; 6.5 M groups at 2,000 subjects, issue 31)
    select dataset, subject_id, metric_id
    from metric_values
    where value is not null
    group by dataset, subject_id, metric_id
    having min(value) < max(value)
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

own_population as (
    select
        c.*,
        pop.spearman_rho, pop.spearman_rho_signed, pop.n, pop.n_subjects, pop.fisher_z, pop.fisher_se,
        pop.null_reason,
        -- §6 "Small cohorts" rule 1: the own dataset cannot give a population correlation for (x, y)
        -- when fewer than min_pop_subjects of its subjects have paired days; the reference population
        -- (the other datasets' meta-analysis) stands in
        coalesce(pop.n_subjects, 0) < {{ var('min_pop_subjects') }} as use_reference
    from candidates as c
    left join correlations_population as pop
        on pop.dataset = c.dataset
       and pop.node_a = least(c.node_x, c.node_y) and pop.node_b = greatest(c.node_x, c.node_y)
),

population_evidence as (
    select
        o.dataset, o.subject_id, o.node_x, o.node_y, o.w_prior,
        case when o.use_reference then rp.spearman_rho        else o.spearman_rho end        as r_pop,
        case when o.use_reference then rp.spearman_rho_signed else o.spearman_rho_signed end as r_pop_signed,
        coalesce(case when o.use_reference and rp.n is not null then rp.n else o.n end, 0) as n_pop,
        case when o.use_reference and rp.n is not null then rp.n_subjects else o.n_subjects end as n_pop_subjects,
        case when o.use_reference then rp.fisher_z  else o.fisher_z end                    as fz_pop,
        case when o.use_reference then rp.fisher_se else o.fisher_se end                   as se_pop,
        case when o.use_reference and rp.n is not null then null
             else coalesce(o.null_reason, case when o.n is null then 'n_below_min' end) end as r_pop_reason,
        case when o.use_reference and rp.n is not null then 'reference: ' || rp.sources
             when not o.use_reference and o.spearman_rho is not null then o.dataset end    as pop_source
    from own_population as o
    left join correlations_reference as rp
        on o.use_reference and rp.dataset = o.dataset
       and rp.node_a = least(o.node_x, o.node_y) and rp.node_b = greatest(o.node_x, o.node_y)
),

observed as (
    select
        c.*,
        -- one 64-bit key per neighbourhood C(x) of a subject: the HBM's windows partition by it
        -- instead of the three name columns (a cheaper sort of the 2.4 M rows at 2,000 subjects)
        {{ wag_group_key(['c.dataset', 'c.subject_id', 'c.node_x']) }} as neighbourhood_key,
        ind.spearman_rho         as r_s,
        ind.spearman_rho_signed  as r_s_signed,
        coalesce(ind.n, 0)       as n_s,
        ind.fisher_z             as fz_s,
        ind.fisher_se            as se_s,
        coalesce(ind.null_reason, case when ind.n is null then 'n_below_min' end) as r_s_reason
    from population_evidence as c
    left join correlations_individual as ind
        on ind.dataset = c.dataset and ind.subject_id = c.subject_id
       and ind.node_a = least(c.node_x, c.node_y) and ind.node_b = greatest(c.node_x, c.node_y)
),

weights as (
    {{ wag_hbm('observed', ['neighbourhood_key'],
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
    pop_source,
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
