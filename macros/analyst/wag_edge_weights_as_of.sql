{% macro wag_analyst_edge_weights_as_of(schema) -%}
{#-
  The statement creating the DuckDB table macro <schema>.wag_edge_weights_as_of (installed by
  macros/analyst/_install.sql, create_wag_retrieve): the global edge weights of one subject as of a
  reference day t (DESIGN.md §6 "As of"), the same wag_hbm as the full-history table edge_weights; the
  comment that opens the statement gives its arguments and sources.
-#}
{%- set sql -%}
-- Global edge weights of one subject as of ref_day t (DESIGN.md §6 "As of"): C_s(x) = metrics with
-- two or more distinct values up to t; individual Spearman over the subject's paired days <= t
-- (exact, per query); population Spearman from the last monthly snapshot <= t of
-- correlations_population_snapshots (pop_as_of_day; thresholds min_samples / min_pop_subjects applied
-- to its n and n_subjects here), or with var population_as_of = 'exact' pooled over the dataset's
-- subject-days <= t per query (pop_as_of_day = t; slower, and O(subjects) per query); then wag_hbm. One row per (node_x in primary_nodes, node_y in C_s(x)).
create or replace macro {{ schema }}.wag_edge_weights_as_of(
    subject, ref_day, primary_nodes,
    {{ wag_global_weight_parameters() }}
) as table
with
asof_checks as (
    select case when ref_day is null
        then error('wag_edge_weights_as_of: ref_day is NULL; pass the reference day') else true end as ok
),
asof_subject as (
    select any_value(dataset) as dataset from metric_values where subject_id = subject
),
asof_x as (
    select distinct x as node_x from (select unnest(primary_nodes) as x) as t
    where x is not null and (select ok from asof_checks)
),
asof_directed as (
    select e.node_a as node_x, e.node_b as node_y, e.w_prior
    from edges as e inner join asof_x as x on x.node_x = e.node_a
    union all
    select e.node_b as node_x, e.node_a as node_y, e.w_prior
    from edges as e inner join asof_x as x on x.node_x = e.node_b
),
asof_subject_values as (
    select metric_id, day, value
    from metric_values
    where subject_id = subject and day <= ref_day and value is not null
),
asof_varying as (
    -- C_s(x): the subject recorded y with variation (two or more distinct values) up to t (§6)
    select metric_id from asof_subject_values group by metric_id having min(value) < max(value)
),
asof_candidates as (
    select s.dataset, subject as subject_id, d.node_x, d.node_y, d.w_prior
    from asof_directed as d
    inner join asof_varying as v on v.metric_id = d.node_y
    cross join asof_subject as s
),
asof_x_values as (
    -- the primaries' own days first: joining them to the other metrics by day keeps the pair join
    -- to |days of x| x |metrics per day| rows instead of every metric against every metric
    select s.metric_id as node_x, s.day, s.value
    from asof_subject_values as s inner join asof_x as x on x.node_x = s.metric_id
),
asof_pairs_ind as (
    select c.node_x, c.node_y, a.value as value_x, b.value as value_y
    from asof_x_values as a
    inner join asof_subject_values as b on b.day = a.day
    inner join asof_candidates as c on c.node_x = a.node_x and c.node_y = b.metric_id
),
asof_ind as (
    {{ spearman('asof_pairs_ind', ['node_x', 'node_y'], 'value_x', 'value_y', 'min_samples') }}
),
{%- set exact_population = var('population_as_of', 'exact') == 'exact' %}
asof_pop_lookup_day as (
    -- the snapshot of correlations_population_snapshots that is read: the last month-end snapshot
    -- <= t (the dataset's subject-days <= that day pooled, §6 "As of" allows it); in exact mode only
    -- the full-history one, once t reaches the dataset's last paired day (then it is exact)
    select max(p.snapshot_day) as snapshot_day
    from correlations_population_snapshots as p
    where p.dataset = (select dataset from asof_subject) and p.snapshot_day <= ref_day
      {%- if exact_population %} and p.is_full_history{% endif %}
),
asof_pop_snapshot as (
    -- the last day of the pooled sample behind every population correlation (pop_as_of_day)
    select {{ 'ref_day' if exact_population else '(select snapshot_day from asof_pop_lookup_day)' }} as snapshot_day
),
asof_pop_lookup as (
    select c.node_x, c.node_y, p.n, p.n_subjects, p.rho_unchecked,
           {{ spearman_checked_reason('p.n', 'p.n_subjects', 'p.variance_reason', 'min_samples', 'min_pop_subjects') }}
               as null_reason
    from asof_candidates as c
    inner join correlations_population_snapshots as p
        on p.dataset = c.dataset
       and p.snapshot_day = (select snapshot_day from asof_pop_lookup_day)
       and p.node_a = least(c.node_x, c.node_y) and p.node_b = greatest(c.node_x, c.node_y)
),
{%- if exact_population %}
asof_needed as (
    select node_x as metric_id from asof_x
    union
    select node_y as metric_id from asof_candidates
),
asof_pop_values as (
    -- exact mode before the dataset's last day: the dataset's subject-days <= t, pooled in this query
    select v.subject_id, v.metric_id, v.day, v.value
    from metric_values as v
    inner join asof_needed as m on m.metric_id = v.metric_id
    where v.dataset = (select dataset from asof_subject) and v.day <= ref_day and v.value is not null
      and (select snapshot_day from asof_pop_lookup_day) is null
),
asof_pop_x_values as (
    select v.subject_id, v.metric_id as node_x, v.day, v.value
    from asof_pop_values as v inner join asof_x as x on x.node_x = v.metric_id
),
asof_pairs_pop as (
    select c.node_x, c.node_y, a.subject_id, a.value as value_x, b.value as value_y
    from asof_pop_x_values as a
    inner join asof_pop_values as b on b.subject_id = a.subject_id and b.day = a.day
    inner join asof_candidates as c on c.node_x = a.node_x and c.node_y = b.metric_id
),
asof_pop_computed as (
    {{ spearman('asof_pairs_pop', ['node_x', 'node_y'], 'value_x', 'value_y', 'min_samples',
                subject_col='subject_id', min_subjects='min_pop_subjects') }}
),
{%- endif %}
asof_pop_checked as (
    select node_x, node_y, n, n_subjects, null_reason,
           case when null_reason is null then rho_unchecked end as spearman_rho
    from asof_pop_lookup
    {%- if exact_population %}
    union all
    select node_x, node_y, n, n_subjects, null_reason, spearman_rho from asof_pop_computed
    {%- endif %}
),
asof_reference as (
    -- §6 "Small cohorts" rule 1: the other datasets' full-history meta-analysis (prior knowledge, not
    -- look-ahead), under this call's thresholds
    {{ wag_reference_population_select('correlations_population_snapshots', 'asof_subject', 'min_samples', 'min_pop_subjects') }}
),
asof_own as (
    select
        c.*,
        pop.spearman_rho as own_rho, pop.n as own_n, pop.n_subjects as own_n_subjects,
        pop.null_reason as own_reason,
        -- fewer than min_pop_subjects of the own dataset's subjects with paired days up to the snapshot
        coalesce(pop.n_subjects, 0) < min_pop_subjects as use_reference
    from asof_candidates as c
    left join asof_pop_checked as pop on pop.node_x = c.node_x and pop.node_y = c.node_y
),
asof_pop_chosen as (
    select
        o.*,
        case when o.use_reference and rp.n is not null then rp.spearman_rho_signed else o.own_rho end as pop_rho,
        case when o.use_reference and rp.n is not null then rp.n else o.own_n end as pop_n,
        case when o.use_reference and rp.n is not null then rp.n_subjects else o.own_n_subjects end as pop_n_subjects,
        case when o.use_reference and rp.n is not null then rp.fisher_se end as ref_se,
        case when o.use_reference and rp.n is not null then 'reference: ' || rp.sources
             when not o.use_reference and o.own_rho is not null then o.dataset end as pop_source,
        o.use_reference and rp.n is not null as is_reference
    from asof_own as o
    left join asof_reference as rp
        on o.use_reference and rp.node_a = least(o.node_x, o.node_y) and rp.node_b = greatest(o.node_x, o.node_y)
),
asof_observed as (
    select
        c.dataset, c.subject_id, c.node_x, c.node_y, c.w_prior,
        abs(c.pop_rho)                     as r_pop,
        c.pop_rho                          as r_pop_signed,
        coalesce(c.pop_n, 0)               as n_pop,
        c.pop_n_subjects                   as n_pop_subjects,
        case when c.pop_rho is not null then {{ fisher_z('c.pop_rho') }} end as fz_pop,
        case when c.is_reference then c.ref_se
             when c.pop_rho is not null then {{ fisher_se('c.pop_n') }} end  as se_pop,
        case when c.is_reference then null
             else coalesce(c.own_reason, case when (select snapshot_day from asof_pop_snapshot) is null then 'no_population_snapshot'
                                              when c.own_n is null then 'n_below_min' end) end as r_pop_reason,
        c.pop_source,
        (select snapshot_day from asof_pop_snapshot) as pop_as_of_day,
        abs(ind.spearman_rho)              as r_s,
        ind.spearman_rho                   as r_s_signed,
        coalesce(ind.n, 0)                 as n_s,
        case when ind.spearman_rho is not null then {{ fisher_z('ind.spearman_rho') }} end as fz_s,
        case when ind.spearman_rho is not null then {{ fisher_se('ind.n') }} end           as se_s,
        coalesce(ind.null_reason, case when ind.n is null then 'n_below_min' end)        as r_s_reason
    from asof_pop_chosen as c
    left join asof_ind as ind on ind.node_x = c.node_x and ind.node_y = c.node_y
),
asof_weights as (
    {{ wag_hbm('asof_observed', ['dataset', 'subject_id', 'node_x'],
               'gamma_global', 'alpha_prior', 'alpha_pop', 'alpha_ind') }}
)
select
    dataset, subject_id, node_x, node_y, w_prior,
    r_pop, r_pop_signed, cast(n_pop as integer) as n_pop, cast(n_pop_subjects as integer) as n_pop_subjects,
    fz_pop, se_pop, r_pop_reason, pop_source,
    r_s, r_s_signed, cast(n_s as integer) as n_s, fz_s, se_s, r_s_reason,
    p_prior, o_pop, i_ind, v_pop, u_ind, q_prior, mu_pop, sigma_pop, mu_s, sigma_s,
    w_global, fallback, w_pop_ablation, w_ind_ablation,
    ref_day as as_of_day, pop_as_of_day
from asof_weights;
{%- endset -%}
{{ return(sql) }}
{%- endmacro %}
