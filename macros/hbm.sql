{% macro wag_hbm(observed, partition_by, gamma_global, alpha_prior, alpha_pop, alpha_ind) -%}
{#-
  The closed-form diagonal hierarchical Bayesian edge weights (DESIGN.md §6), as one SELECT over a
  relation of observed evidence. This is the single definition of the HBM: the full-history table
  `edge_weights`, the as-of table macro `wag_edge_weights_as_of` (reference day t) and the alpha
  grid of the evaluation all call it.

  observed      relation (table, CTE or subquery name) with one row per candidate y of a primary x:
                  <partition_by columns>, node_x, node_y, w_prior,
                  r_pop, r_pop_signed, n_pop, fz_pop, se_pop, r_pop_reason,
                  r_s, r_s_signed, n_s, fz_s, se_s, r_s_reason
                (r_* NULL when the correlation is not valid; the rows are C(x), x excluded)
  partition_by  list of column names that identify one neighbourhood C(x), e.g. ['dataset',
                'subject_id', 'node_x'] (the alpha grid adds its alpha columns), or one key column
                computed from them (edge_weights: a 64-bit hash, a cheaper sort than three names)
  gamma_global, alpha_prior, alpha_pop, alpha_ind
                SQL expressions (numbers, dbt vars, macro parameters or column names)

  Stages ("standardise over C" = (v - mean_C v) / sd_C v, sample sd; 0 when max = min or fewer than
  2 values; sig(v, g) = 1 / (1 + exp(-g v))):
    p_prior = sig(std_C(w_prior), gamma)
    o_pop   = sig(std_C(fz_pop), gamma);  v_pop = alpha_pop (se_pop / sd_C(fz_pop) o (1-o))^2
    i_ind   = sig(std_C(fz_s),   gamma);  u_ind = alpha_ind (se_s / sd_C(fz_s) i (1-i))^2
    q_prior = alpha_prior mean_C(v_pop / alpha_pop)
              -- §6 "Small cohorts" rule 2: when no candidate has a population variance,
              -- q_prior = alpha_prior mean_C(u_ind / alpha_ind) and the population stage is skipped
              -- (mu_pop = p, sigma_pop = q); the individual update then applies as usual
    stage 1 sigma_pop = 1/(1/q + 1/v),          mu_pop = sigma_pop (p/q + o/v)
    stage 2 sigma_s   = 1/(1/sigma_pop + 1/u),  mu_s   = sigma_s (mu_pop/sigma_pop + i/u)
    w_global = mu_s if r_s valid, else mu_pop if r_pop valid, else p_prior;  = p_prior if q undefined
    fallback = 'individual' (r_s valid, q from the population stage), 'individual_no_population'
               (r_s valid, q from the individual stage: no candidate had population evidence),
               'population' (r_pop valid, r_s not), 'prior' (neither, or q undefined)
  A missing observation, or one whose variance is undefined (sd_C = 0, < 2 candidates with a value),
  skips its stage: the posterior is the stage's prior.

  Output: every input column, the intermediate stages (z_*, v_pop, u_ind, q_pop, q_ind, q_prior) and
  p_prior, o_pop, i_ind, mu_pop, sigma_pop, mu_s, sigma_s, w_global, fallback, and the experiment-G
  ablation weights w_pop_ablation = coalesce(o_pop, p_prior), w_ind_ablation = coalesce(i_ind, p_prior).
-#}
{%- set gx = partition_by | join(', ') -%}
with hbm_moments as (
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
    from {{ observed }}
    window gx as (partition by {{ gx }})
),

hbm_standardised as (
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
    from hbm_moments
),

hbm_squashed as (
    select
        *,
        1.0 / (1.0 + exp(-({{ gamma_global }}) * z_prior))  as p_prior,
        1.0 / (1.0 + exp(-({{ gamma_global }}) * z_pop))    as o_pop,
        1.0 / (1.0 + exp(-({{ gamma_global }}) * z_ind))    as i_ind
    from hbm_standardised
),

hbm_variances as (
    select
        *,
        case when o_pop is not null and pop_variance_defined and se_pop is not null
             then ({{ alpha_pop }}) * power(se_pop / sd_fz_pop * o_pop * (1 - o_pop), 2) end as v_pop,
        case when i_ind is not null and ind_variance_defined and se_s is not null
             then ({{ alpha_ind }}) * power(se_s / sd_fz_s * i_ind * (1 - i_ind), 2) end    as u_ind
    from hbm_squashed
),

hbm_prior_variance as (
    select
        *,
        -- Sigma_prior = V_pop, unmodulated: mean over C of v_pop / alpha_pop, times alpha_prior
        ({{ alpha_prior }}) * avg(v_pop / ({{ alpha_pop }})) over (partition by {{ gx }}) as q_pop,
        -- §6 "Small cohorts" rule 2: no population variance in C -> the individual stage's, unmodulated
        ({{ alpha_prior }}) * avg(u_ind / ({{ alpha_ind }})) over (partition by {{ gx }}) as q_ind
    from hbm_variances
),

hbm_prior_variance_chosen as (
    select *, coalesce(q_pop, q_ind) as q_prior
    from hbm_prior_variance
),

hbm_stage_population as (
    select
        *,
        case when q_prior is null then null
             when v_pop is null then q_prior
             else 1.0 / (1.0 / q_prior + 1.0 / v_pop) end as sigma_pop
    from hbm_prior_variance_chosen
),

hbm_stage_population_mean as (
    select
        *,
        case when q_prior is null then null
             when v_pop is null then p_prior
             else sigma_pop * (p_prior / q_prior + o_pop / v_pop) end as mu_pop,
        case when q_prior is null then null
             when u_ind is null then sigma_pop
             else 1.0 / (1.0 / sigma_pop + 1.0 / u_ind) end as sigma_s
    from hbm_stage_population
),

hbm_stage_individual as (
    select
        *,
        case when q_prior is null then null
             when u_ind is null then mu_pop
             else sigma_s * (mu_pop / sigma_pop + i_ind / u_ind) end as mu_s
    from hbm_stage_population_mean
)

select
    *,
    case
        when q_prior is null then p_prior
        when r_s is not null then mu_s
        when r_pop is not null then mu_pop
        else p_prior
    end as w_global,
    case
        when q_prior is null then 'prior'
        when r_s is not null and q_pop is null then 'individual_no_population'
        when r_s is not null then 'individual'
        when r_pop is not null then 'population'
        else 'prior'
    end as fallback,
    -- ablation weightings of experiment G (DESIGN.md §6): where o or i is NULL, fall back to p
    coalesce(o_pop, p_prior) as w_pop_ablation,
    coalesce(i_ind, p_prior) as w_ind_ablation
from hbm_stage_individual
{%- endmacro %}
