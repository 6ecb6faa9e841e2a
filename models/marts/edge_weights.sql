{{ config(post_hook="{{ create_wag_retrieve(this, ref('metric_values')) }}") }}
-- Global edge weights: closed-form diagonal hierarchical Bayesian model (DESIGN.md §6).
-- Grain: one row per (dataset, subject_id, node_x, node_y) for every y in C(x), where
--   C(x) = metrics with data in the subject's dataset that share a prior edge with x (x excluded).
-- x ranges over every catalog node, so a question about a metric without data still has neighbours.
-- "Standardise over C" = (v - mean_C(v)) / sd_C(v) over the candidates that have v (sample sd);
-- 0 when sd = 0 or fewer than 2 values. sig(v, g) = 1 / (1 + exp(-g v)).
--   p_prior = sig(std_C(w_prior), gamma_global)
--   o_pop   = sig(std_C(fz_pop), gamma_global);  v_pop = alpha_pop (se_pop / sd_C(fz_pop) o (1-o))^2
--   i_ind   = sig(std_C(fz_s),   gamma_global);  u_ind = alpha_ind (se_s / sd_C(fz_s) i (1-i))^2
--   q_prior = alpha_prior mean_C(v_pop / alpha_pop)
--   stage 1 sigma_pop = 1/(1/q + 1/v),          mu_pop = sigma_pop (p/q + o/v)
--   stage 2 sigma_s   = 1/(1/sigma_pop + 1/u),  mu_s   = sigma_s (mu_pop/sigma_pop + i/u)
--   w_global = mu_s if r_s valid, else mu_pop if r_pop valid, else p_prior;  = p_prior if q undefined
-- A missing observation, or one whose variance is undefined (sd_C = 0, < 2 candidates with a value),
-- skips its stage: the posterior is the stage's prior.
{%- set gamma = var('gamma_global') %}
with data_metrics as (
    select distinct dataset, metric_id from {{ ref('metric_values') }}
),

subjects as (
    select distinct dataset, subject_id from {{ ref('metric_values') }}
),

directed_edges as (
    select node_a as node_x, node_b as node_y, w_prior from {{ ref('edges') }}
    union all
    select node_b as node_x, node_a as node_y, w_prior from {{ ref('edges') }}
),

candidates as (
    select s.dataset, s.subject_id, e.node_x, e.node_y, e.w_prior
    from subjects as s
    inner join data_metrics as d on d.dataset = s.dataset
    inner join directed_edges as e on e.node_y = d.metric_id
),

observed as (
    select
        c.*,
        pop.spearman_rho         as r_pop,
        pop.spearman_rho_signed  as r_pop_signed,
        coalesce(pop.n, 0)       as n_pop,
        pop.fisher_z             as fz_pop,
        pop.fisher_se            as se_pop,
        ind.spearman_rho         as r_s,
        ind.spearman_rho_signed  as r_s_signed,
        coalesce(ind.n, 0)       as n_s,
        ind.fisher_z             as fz_s,
        ind.fisher_se            as se_s
    from candidates as c
    left join {{ ref('correlations_population') }} as pop
        on pop.dataset = c.dataset
       and pop.node_a = least(c.node_x, c.node_y) and pop.node_b = greatest(c.node_x, c.node_y)
    left join {{ ref('correlations_individual') }} as ind
        on ind.dataset = c.dataset and ind.subject_id = c.subject_id
       and ind.node_a = least(c.node_x, c.node_y) and ind.node_b = greatest(c.node_x, c.node_y)
),

moments as (
    select
        *,
        avg(w_prior)         over gx as mean_prior,
        stddev_samp(w_prior) over gx as sd_prior,
        count(w_prior)       over gx as k_prior,
        max(w_prior) over gx > min(w_prior) over gx as prior_varies,
        avg(fz_pop)          over gx as mean_fz_pop,
        stddev_samp(fz_pop)  over gx as sd_fz_pop,
        count(fz_pop)        over gx as k_fz_pop,
        max(fz_pop) over gx > min(fz_pop) over gx as pop_varies,
        avg(fz_s)            over gx as mean_fz_s,
        stddev_samp(fz_s)    over gx as sd_fz_s,
        count(fz_s)          over gx as k_fz_s,
        max(fz_s) over gx > min(fz_s) over gx as ind_varies
    from observed
    window gx as (partition by dataset, subject_id, node_x)
),

standardised as (
    select
        *,
        -- "sd = 0" is tested as max = min: exact on every engine, unlike a float sd of equal values
        case when k_prior >= 2 and prior_varies then (w_prior - mean_prior) / sd_prior else 0 end as z_prior,
        case when fz_pop is null then null
             when k_fz_pop >= 2 and pop_varies then (fz_pop - mean_fz_pop) / sd_fz_pop else 0 end as z_pop,
        case when fz_s is null then null
             when k_fz_s >= 2 and ind_varies then (fz_s - mean_fz_s) / sd_fz_s else 0 end as z_ind,
        coalesce(k_fz_pop >= 2 and pop_varies, false) as pop_variance_defined,
        coalesce(k_fz_s   >= 2 and ind_varies, false) as ind_variance_defined
    from moments
),

squashed as (
    select
        *,
        1.0 / (1.0 + exp(-({{ gamma }}) * z_prior))  as p_prior,
        1.0 / (1.0 + exp(-({{ gamma }}) * z_pop))    as o_pop,
        1.0 / (1.0 + exp(-({{ gamma }}) * z_ind))    as i_ind
    from standardised
),

variances as (
    select
        *,
        case when o_pop is not null and pop_variance_defined and se_pop is not null
             then {{ var('alpha_pop') }} * power(se_pop / sd_fz_pop * o_pop * (1 - o_pop), 2) end as v_pop,
        case when i_ind is not null and ind_variance_defined and se_s is not null
             then {{ var('alpha_ind') }} * power(se_s / sd_fz_s * i_ind * (1 - i_ind), 2) end   as u_ind
    from squashed
),

prior_variance as (
    select
        *,
        {{ var('alpha_prior') }} * avg(v_pop / {{ var('alpha_pop') }})
            over (partition by dataset, subject_id, node_x) as q_prior
    from variances
),

stage_population as (
    select
        *,
        case when q_prior is null then null
             when v_pop is null then q_prior
             else 1.0 / (1.0 / q_prior + 1.0 / v_pop) end as sigma_pop
    from prior_variance
),

stage_population_mean as (
    select
        *,
        case when q_prior is null then null
             when v_pop is null then p_prior
             else sigma_pop * (p_prior / q_prior + o_pop / v_pop) end as mu_pop,
        case when q_prior is null then null
             when u_ind is null then sigma_pop
             else 1.0 / (1.0 / sigma_pop + 1.0 / u_ind) end as sigma_s
    from stage_population
),

stage_individual as (
    select
        *,
        case when q_prior is null then null
             when u_ind is null then mu_pop
             else sigma_s * (mu_pop / sigma_pop + i_ind / u_ind) end as mu_s
    from stage_population_mean
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
    fz_pop,
    se_pop,
    r_s,
    r_s_signed,
    cast(n_s as integer) as n_s,
    fz_s,
    se_s,
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
    case
        when q_prior is null then p_prior
        when r_s is not null then mu_s
        when r_pop is not null then mu_pop
        else p_prior
    end as w_global,
    case
        when q_prior is null then 'prior'
        when r_s is not null then 'individual'
        when r_pop is not null then 'population'
        else 'prior'
    end as fallback,
    -- ablation weightings of experiment G (DESIGN.md §6): where o or i is NULL, fall back to p
    coalesce(o_pop, p_prior) as w_pop_ablation,
    coalesce(i_ind, p_prior) as w_ind_ablation
from stage_individual
