{{ config(materialized='view') }}
-- Hyperparameter grid for alpha_pop and alpha_ind (DESIGN.md §6 "Hyperparameter selection").
-- The stored evidence of every edge_weights row (the HBM's observed inputs: w_prior, population and
-- individual correlations with their Fisher z and standard errors) cross-joined with a log10 grid
-- (var alpha_grid_log10 = {start, stop, step}), and the single HBM definition (macro wag_hbm) run
-- with alpha as a column: grid_param 'alpha_pop' varies alpha_pop with alpha_ind at its var;
-- 'alpha_ind' varies alpha_ind with alpha_pop at its var. The grid point is part of the partition,
-- so every point is an independent HBM over the same C_s(x). A view: computed only when queried
-- (`wag eval alpha`), never during a build. Grain: grid_param x log10_alpha x subject x node_x x node_y.
{%- set g = var('alpha_grid_log10') %}
{%- set n_points = (((g['stop'] - g['start']) / g['step']) | round(0, 'floor') | int) + 1 %}
with edge_weights as (
    select * from {{ ref('edge_weights') }}
),

grid_points as (
    select
        p.grid_param,
        {{ g['start'] }} + i.i * {{ g['step'] }} as log10_alpha
    from (select 'alpha_pop' as grid_param union all select 'alpha_ind') as p
    cross join (select {{ wag_range_rows(0, n_points, 1) }} as i) as i
),

grid as (
    select
        grid_param,
        log10_alpha,
        case when grid_param = 'alpha_pop' then power(10, log10_alpha) else {{ var('alpha_pop') }} end as grid_alpha_pop,
        case when grid_param = 'alpha_ind' then power(10, log10_alpha) else {{ var('alpha_ind') }} end as grid_alpha_ind
    from grid_points
),

observed as (
    select
        g.grid_param, g.log10_alpha, g.grid_alpha_pop, g.grid_alpha_ind,
        e.dataset, e.subject_id, e.node_x, e.node_y, e.w_prior,
        e.r_pop, e.r_pop_signed, e.n_pop, e.fz_pop, e.se_pop,
        e.r_s, e.r_s_signed, e.n_s, e.fz_s, e.se_s
    from edge_weights as e
    cross join grid as g
),

hbm as (
    {{ wag_hbm('observed', ['grid_param', 'log10_alpha', 'dataset', 'subject_id', 'node_x'],
               var('gamma_global'), var('alpha_prior'), 'grid_alpha_pop', 'grid_alpha_ind') }}
)

select
    grid_param,
    log10_alpha,
    grid_alpha_pop as alpha_pop,
    grid_alpha_ind as alpha_ind,
    dataset,
    subject_id,
    node_x,
    node_y,
    p_prior,
    o_pop,
    i_ind,
    mu_pop,
    mu_s,
    w_global
from hbm
