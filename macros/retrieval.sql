{% macro create_wag_retrieve(schema) -%}
{#-
  Creates two DuckDB table macros in the warehouse.

  wag_node_window(subject, ref_day, window_days): one row per metric the subject has up to ref_day,
  with the usual level (mean, sample sd over every day <= ref_day: no look-ahead), its last day
  with data up to ref_day (last_day), the window
  [ref_day - window_days + 1, ref_day] (NULL = every day <= ref_day): days with data, mean, min,
  max and their days (window_min_day / window_max_day, the earliest of tied days), zeta = mean |v - mu| / sd (DESIGN.md §4, §7), and the daily values. It is the single
  definition of the window statistics, used by wag_retrieve and by the CLI.
  Coverage (issue 9 item 7): n_window_calendar_days = days in the window (for 'all': the subject's
  first day of the metric .. ref_day); window_coverage = n_window_days / n_window_calendar_days;
  expected_window_days = n_window_calendar_days x the subject's own cadence for the metric (days with
  data / calendar days of its history up to ref_day, so a weekly survey expects 1 day in 7);
  window_coverage_vs_usual = min(1, n_window_days / expected_window_days). Below min_coverage (named
  argument, default var('min_window_coverage')) on that measure, window_mean, window_dev_sd,
  window_min, window_max and zeta are NULL: one observed day in a 30-day window is not a 30-day mean.
  n_window_days and daily are always given.

  And the table macro wag_retrieve (DESIGN.md §7-§8, paper Algorithm 2),
  as a post-hook of the edge_weights model, so an analyst can call it from any DuckDB client with no Python:

    select * from wag_retrieve('pmdata:p01', ['deep_sleep_duration'], date '2020-01-15', 7, 0.8);

  Arguments
    subject       subject_id, e.g. 'pmdata:p01'
    metrics       list of primary metric ids (V_p)
    ref_day       reference day t^q (DATE); only days <= t^q are used (no look-ahead)
    window_days   window k^q in calendar days; NULL = 'all' (no local signal, w_local NULL)
    eta           openness in [0, 1]
    kappa, beta, gamma_local, include_unselected   named, defaults from dbt vars

  Local weight of a candidate y of primary x, over C(x) (§7):
    zeta_y  = mean over the subject's days in [t^q - k^q + 1, t^q] of |v - mu| / sd,
              mu and sd (sample) over the subject's days <= t^q
    m_y     = min-max of zeta over C(x) (all equal -> 0.5); NULL when y has no data in the window
    y_y     = eta m + (1 - eta)(1 - m);  w_local = sig(std_C(y), gamma_local)
    w_final = (1 - beta) w_global + beta w_local, or w_global where w_local is NULL
  Selection (§8): B = floor(eta kappa); k_p = ceil(B / |V_p|) (0 if B = 0); per primary x, rank C(x)
  minus primary nodes by w_final desc, node id asc; keep the top k_p.

  Global weights: wag_edge_weights_as_of(subject, ref_day, V_p); when ref_day is at or after the
  subject's last numeric day and the dataset's full-history population snapshot and the weight
  arguments are the dbt vars' (the default reference day of `wag ask`), the same weights are read from
  the stored full-history table edge_weights instead (§6: it is that special case), not recomputed.

  Tables (edge_weights, metric_values, nodes) are referenced by bare name, so the macros keep working
  when the DuckDB file is renamed or copied. Bare names resolve against the caller's current
  database: call the macros with the warehouse as the current database (open the file itself, or
  ATTACH it and USE it).

  Returns one row per requested primary node (role 'primary', rank 0; an id that is not a graph node
  is reported with is_selected = false and not counted in |V_p|) and per selected neighbour (role
  'neighbour'), with the edge's weight columns (w_prior, r_s/r_pop, p_prior, o_pop, i_ind, mu_pop,
  sigma_pop, mu_s, sigma_s, w_global, fallback), the local stages (zeta, m_norm, y_open, w_local),
  w_final and the reason it was chosen. Bad arguments (eta outside [0, 1], window_days < 1, ref_day
  NULL) raise an error.
-#}
{%- set candidate_columns -%}
w.node_x, w.node_y, w.w_prior, w.r_s_signed, w.n_s, w.r_s_reason, w.r_pop_signed, w.n_pop,
           w.n_pop_subjects, w.r_pop_reason, w.pop_source, w.p_prior, w.o_pop, w.i_ind, w.mu_pop, w.sigma_pop,
           w.mu_s, w.sigma_s, w.w_global, w.fallback
{%- endset -%}
{%- set sql -%}
create or replace macro {{ schema }}.wag_node_window(subject, ref_day, window_days,
    min_coverage := {{ var('min_window_coverage', 0.5) }}) as table
with
history as (
    select v.metric_id, v.day, v.value, v.value_text
    from metric_values as v
    where v.subject_id = subject and v.day <= ref_day
),
usual as (
    select metric_id, avg(value) as usual_mean, stddev_samp(value) as usual_sd,
           count(value) as n_history_days, max(day) as last_day,
           date_diff('day', min(day), ref_day) + 1 as n_history_calendar_days
    from history
    group by metric_id
),
baseline as (
    -- the subject's days before the window (what a window is compared with in answers, §8 step 4)
    select metric_id, avg(value) as baseline_mean, stddev_samp(value) as baseline_sd,
           count(value) as n_baseline_days
    from history
    where window_days is not null and date_diff('day', day, ref_day) >= window_days
    group by metric_id
),
in_window as (
    select
        h.*,
        case when u.usual_sd > 0 then abs(h.value - u.usual_mean) / u.usual_sd end as z
    from history as h
    inner join usual as u using (metric_id)
    where window_days is null or date_diff('day', h.day, ref_day) < window_days
),
window_stats as (
    select
        u.metric_id, u.n_history_days, u.usual_mean, u.usual_sd, u.last_day,
        b.baseline_mean, b.baseline_sd, b.n_baseline_days,
        coalesce(window_days, u.n_history_calendar_days) as n_window_calendar_days,
        coalesce(window_days, u.n_history_calendar_days) * u.n_history_days / u.n_history_calendar_days
            as expected_window_days,
        count(w.day) as n_window_days,
        avg(w.value) as window_mean,
        min(w.value) as window_min,
        max(w.value) as window_max,
        -- the day of the window's lowest / highest value (the earliest of tied days)
        arg_min(w.day, (w.value, w.day)) as window_min_day,
        arg_max(w.day, (w.value, -date_diff('day', date '1970-01-01', w.day))) as window_max_day,
        avg(w.z)     as zeta,
        list({'day': w.day, 'value': w.value, 'value_text': w.value_text, 'z': w.z} order by w.day)
            filter (where w.day is not null) as daily
    from usual as u
    left join baseline as b using (metric_id)
    left join in_window as w using (metric_id)
    group by u.metric_id, u.n_history_days, u.usual_mean, u.usual_sd, u.last_day, u.n_history_calendar_days,
             b.baseline_mean, b.baseline_sd, b.n_baseline_days
),
covered as (
    select *,
           n_window_days / n_window_calendar_days as window_coverage,
           case when expected_window_days > 0 then least(1.0, n_window_days / expected_window_days) end
               as window_coverage_vs_usual,
           coalesce(expected_window_days > 0 and n_window_days / expected_window_days >= min_coverage, false)
               as is_covered
    from window_stats
)
select
    metric_id,
    n_history_days,
    usual_mean,
    usual_sd,
    last_day,
    baseline_mean,
    baseline_sd,
    coalesce(n_baseline_days, 0) as n_baseline_days,
    n_window_days,
    case when is_covered then window_mean end as window_mean,
    -- window mean against the usual level, in usual standard deviations (NULL when sd is 0/undefined)
    case when is_covered and usual_sd > 0 then (window_mean - usual_mean) / usual_sd end as window_dev_sd,
    -- the same against the days before the window (what answers compare a period with), >= 2 days
    case when is_covered and n_baseline_days >= 2 and baseline_sd > 0
         then (window_mean - baseline_mean) / baseline_sd end as baseline_dev_sd,
    case when is_covered then window_min end as window_min,
    case when is_covered then window_max end as window_max,
    case when is_covered then window_min_day end as window_min_day,
    case when is_covered then window_max_day end as window_max_day,
    case when is_covered then zeta end as zeta,
    daily,
    n_window_calendar_days,
    expected_window_days,
    window_coverage,
    window_coverage_vs_usual
from covered;

create or replace macro {{ schema }}.wag_pair_spearman(
    subject, metric_x, metric_y, start_day, end_day,
    min_samples := {{ var('min_samples') }}, lag_days := 0
) as table
-- Spearman's rho of two metrics of one subject on their paired days in [start_day, end_day]
-- (start_day NULL = from the first day; the days are metric_x's), the same macro and validity rule as
-- every correlation (DESIGN.md §5): one row with n, spearman_rho (signed; NULL when not valid) and
-- null_reason. lag_days pairs x on day d with y on day d + lag_days (1: a day's activity with the
-- sleep that ends the next morning, DESIGN.md §11).
with pair_days as (
    select 1 as pair_group, x.value as value_x, y.value as value_y
    from metric_values as x
    inner join metric_values as y
        on y.subject_id = x.subject_id and y.day = x.day + cast(lag_days as integer) and y.metric_id = metric_y
    where x.subject_id = subject and x.metric_id = metric_x
      and x.value is not null and y.value is not null
      and x.day <= end_day and (start_day is null or x.day >= start_day)
),
pair_rho as (
    {{ spearman('pair_days', ['pair_group'], 'value_x', 'value_y', 'min_samples') }}
)
select
    coalesce(r.n, 0) as n,
    r.spearman_rho,
    case when r.n is null then 'n_below_min' else r.null_reason end as null_reason
from (select 1 as one) as o
left join pair_rho as r on true;

-- Global edge weights of one subject as of ref_day t (DESIGN.md §6 "As of"): C_s(x) = metrics with
-- two or more distinct values up to t; individual Spearman over the subject's paired days <= t
-- (exact, per query); population Spearman from the last monthly snapshot <= t of
-- correlations_population_snapshots (pop_as_of_day; thresholds min_samples / min_pop_subjects applied
-- to its n and n_subjects here), or with var population_as_of = 'exact' pooled over the dataset's
-- subject-days <= t per query (pop_as_of_day = t; slower, and O(subjects) per query); then wag_hbm. One row per (node_x in primary_nodes, node_y in C_s(x)).
create or replace macro {{ schema }}.wag_edge_weights_as_of(
    subject, ref_day, primary_nodes,
    min_samples := {{ var('min_samples') }},
    min_pop_subjects := {{ var('min_pop_subjects') }},
    gamma_global := {{ var('gamma_global') }},
    alpha_prior := {{ var('alpha_prior') }},
    alpha_pop := {{ var('alpha_pop') }},
    alpha_ind := {{ var('alpha_ind') }}
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
    select metric_id from asof_subject_values group by metric_id having count(distinct value) >= 2
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
{%- set exact_population = var('population_as_of', 'snapshot') == 'exact' %}
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

create or replace macro {{ schema }}.wag_retrieve(
    subject, metrics, ref_day, window_days, eta,
    kappa := {{ var('kappa') }},
    beta := {{ var('beta') }},
    gamma_local := {{ var('gamma_local') }},
    include_unselected := false,
    rank_by := 'w_final',
    as_of := true,
    min_samples := {{ var('min_samples') }},
    min_pop_subjects := {{ var('min_pop_subjects') }},
    gamma_global := {{ var('gamma_global') }},
    alpha_prior := {{ var('alpha_prior') }},
    alpha_pop := {{ var('alpha_pop') }},
    alpha_ind := {{ var('alpha_ind') }}
) as table
with
checks as (
    -- bad arguments are errors, not silently empty results (used in a filter below, so evaluated)
    select case
        when eta is null or eta < 0 or eta > 1
            then error('wag_retrieve: eta (openness) must be in [0, 1], got ' || coalesce(cast(eta as varchar), 'NULL'))
        when window_days is not null and window_days < 1
            then error('wag_retrieve: window_days must be >= 1, or NULL for all days')
        when ref_day is null
            then error('wag_retrieve: ref_day is NULL; pass the reference day, e.g. the subject''s last day')
        when rank_by not in ('w_final', 'w_global', 'w_local', 'p_prior', 'w_pop', 'w_ind')
            then error('wag_retrieve: rank_by must be one of w_final, w_global, w_local, p_prior, w_pop, w_ind; got ' || coalesce(rank_by, 'NULL'))
        else true
    end as ok
),
requested as (
    select distinct m as node_id
    from (select unnest(metrics) as m) as t
    where m is not null and (select ok from checks)
),
primaries as (
    -- V_p: the requested ids that are graph nodes (known = false rows are reported, not used)
    select r.node_id, exists (select 1 from nodes as n where n.metric_id = r.node_id) as known
    from requested as r
),
settings as (
    select
        count(*) filter (where known)                         as n_primary,
        cast(floor(eta * kappa + 1e-9) as integer)            as budget,
        case when floor(eta * kappa + 1e-9) = 0 or count(*) filter (where known) = 0 then 0
             else cast(ceil(floor(eta * kappa + 1e-9) / count(*) filter (where known)) as integer) end as k_per_primary
    from primaries
),
full_history as (
    -- t at or after the subject's last numeric day and the dataset's full-history population snapshot,
    -- with the dbt vars' thresholds and alphas: the as-of weights are then exactly the stored
    -- full-history table edge_weights (DESIGN.md §6 "As of": edge_weights is the case t = the subject's
    -- last day), read instead of recomputed (45-46 instead of 54-57 ms per call at 2,000 subjects,
    -- bench/RESULTS.md ninth session). pop_as_of_day as the as-of macro gives it.
    select
        coalesce(
            ref_day >= (select max(v.day) from metric_values as v where v.subject_id = subject and v.value is not null)
            and ref_day >= max(p.snapshot_day)
            and min_samples = {{ var('min_samples') }} and min_pop_subjects = {{ var('min_pop_subjects') }}
            and gamma_global = {{ var('gamma_global') }} and alpha_prior = {{ var('alpha_prior') }}
            and alpha_pop = {{ var('alpha_pop') }} and alpha_ind = {{ var('alpha_ind') }},
            false) as is_full_history,
        {{ 'ref_day' if var('population_as_of', 'snapshot') == 'exact' else 'max(p.snapshot_day)' }} as pop_as_of_day
    from correlations_population_snapshots as p
    where p.is_full_history
      and p.dataset = (select any_value(v.dataset) from metric_values as v where v.subject_id = subject)
),
candidates as (
    -- global weights as of ref_day (§6 "As of"): computed per call, or read from the full-history table
    -- when full_history holds (the same values) or as_of := false (full-history weights at any t)
    select {{ candidate_columns }}, w.pop_as_of_day
    from wag_edge_weights_as_of(subject, ref_day,
                                (select list(node_id) from primaries where known
                                   and not (select is_full_history from full_history)),
                                min_samples := min_samples, min_pop_subjects := min_pop_subjects,
                                gamma_global := gamma_global, alpha_prior := alpha_prior,
                                alpha_pop := alpha_pop, alpha_ind := alpha_ind) as w
    where as_of
    union all
    select {{ candidate_columns }},
           case when as_of then (select pop_as_of_day from full_history) end as pop_as_of_day
    from edge_weights as w
    where (not as_of or (select is_full_history from full_history))
      and w.subject_id = subject
      and w.node_x in (select node_id from primaries where known)
),
window_stats as (
    select metric_id, n_window_days, zeta
    from wag_node_window(subject, ref_day, window_days)
),
local_raw as (
    select
        c.*,
        ws.zeta,
        coalesce(ws.n_window_days, 0) as n_window_days,
        -- window 'all' gives no local signal (§7); zeta itself is still reported
        case when window_days is not null then ws.zeta end as zeta_local
    from candidates as c
    left join window_stats as ws on ws.metric_id = c.node_y
),
local_norm as (
    select
        *,
        case when zeta_local is null then null
             when max(zeta_local) over gx = min(zeta_local) over gx then 0.5
             else (zeta_local - min(zeta_local) over gx) / (max(zeta_local) over gx - min(zeta_local) over gx)
        end as m_norm
    from local_raw
    window gx as (partition by node_x)
),
local_open as (
    select *, eta * m_norm + (1 - eta) * (1 - m_norm) as y_open
    from local_norm
),
local_std as (
    select
        *,
        case when y_open is null then null
             when count(y_open) over gx >= 2 and max(y_open) over gx > min(y_open) over gx
                 then (y_open - avg(y_open) over gx) / stddev_samp(y_open) over gx
             else 0 end as y_std
    from local_open
    window gx as (partition by node_x)
),
fused as (
    select
        *,
        case when y_std is not null then 1.0 / (1.0 + exp(-(gamma_local) * y_std)) end as w_local
    from local_std
),
final as (
    select
        *,
        case when w_local is null then w_global else (1 - beta) * w_global + beta * w_local end as w_final
    from fused
),
ranking as (
    -- the weight that ranks the candidates: w_final (§8), or an ablation of experiments G/L (§6-§7)
    select
        *,
        case rank_by
            when 'w_final'  then w_final
            when 'w_global' then w_global
            when 'w_local'  then coalesce(w_local, w_global)
            when 'p_prior'  then p_prior
            when 'w_pop'    then coalesce(o_pop, p_prior)
            when 'w_ind'    then coalesce(i_ind, p_prior)
        end as rank_weight
    from final
),
ranked as (
    select
        f.*,
        row_number() over (partition by f.node_x order by f.rank_weight desc, f.node_y asc) as rank,
        count(*) over (partition by f.node_x) as n_candidates
    from ranking as f
    where not exists (select 1 from primaries as p where p.node_id = f.node_y)
)
select
    'primary'                   as role,
    p.node_id                   as primary_node,
    p.node_id                   as node_id,
    0                           as rank,
    p.known                     as is_selected,
    case when p.known then 'primary: named in the question'
         else 'unknown metric id: not a node of the graph, ignored' end as reason,
    ws.zeta                     as zeta,
    coalesce(ws.n_window_days, 0) as n_window_days,
    cast(null as double)        as w_prior,
    cast(null as double)        as r_s_signed,
    cast(null as integer)       as n_s,
    cast(null as double)        as r_pop_signed,
    cast(null as integer)       as n_pop,
    cast(null as double)        as p_prior,
    cast(null as double)        as o_pop,
    cast(null as double)        as i_ind,
    cast(null as double)        as mu_pop,
    cast(null as double)        as sigma_pop,
    cast(null as double)        as mu_s,
    cast(null as double)        as sigma_s,
    cast(null as double)        as w_global,
    cast(null as varchar)       as fallback,
    cast(null as double)        as m_norm,
    cast(null as double)        as y_open,
    cast(null as double)        as w_local,
    cast(null as double)        as w_final,
    cast(null as varchar)       as r_s_reason,
    cast(null as integer)       as n_pop_subjects,
    cast(null as varchar)       as r_pop_reason,
    rank_by                     as rank_by,
    cast(null as double)        as rank_weight,
    (select budget from settings) as budget,
    cast(null as date)          as pop_as_of_day,
    cast(null as varchar)       as pop_source
from primaries as p
left join window_stats as ws on ws.metric_id = p.node_id
union all
select
    'neighbour'                 as role,
    r.node_x                    as primary_node,
    r.node_y                    as node_id,
    r.rank,
    r.rank <= s.k_per_primary   as is_selected,
    printf('rank %d of %d neighbours of %s by %s %.3f (w_global %.3f from %s evidence%s)',
           r.rank, r.n_candidates, r.node_x, rank_by, r.rank_weight, r.w_global, r.fallback,
           case when r.w_local is null then '; no local weight (no data or too little coverage in the window, or window all)'
                else printf('; window abnormality zeta %.2f, w_local %.3f', r.zeta_local, r.w_local) end)
                                as reason,
    r.zeta,
    r.n_window_days,
    r.w_prior,
    r.r_s_signed,
    r.n_s,
    r.r_pop_signed,
    r.n_pop,
    r.p_prior,
    r.o_pop,
    r.i_ind,
    r.mu_pop,
    r.sigma_pop,
    r.mu_s,
    r.sigma_s,
    r.w_global,
    r.fallback,
    r.m_norm,
    r.y_open,
    r.w_local,
    r.w_final,
    r.r_s_reason,
    r.n_pop_subjects,
    r.r_pop_reason,
    rank_by                     as rank_by,
    r.rank_weight,
    s.budget,
    r.pop_as_of_day,
    r.pop_source
from ranked as r
cross join settings as s
where r.rank <= s.k_per_primary or include_unselected
order by primary_node, rank
{%- endset -%}
{{ return(sql) }}
{%- endmacro %}


{% macro wag_install_retrieve() -%}
  {#- `dbt run-operation wag_install_retrieve`: (re)create wag_node_window and wag_retrieve over the existing
      edge_weights and metric_values tables of the target schema (the post-hook of edge_weights
      does the same on every build). -#}
  {%- do run_query(create_wag_retrieve(target.schema)) -%}
  {{ log("created " ~ target.schema ~ ".wag_node_window, .wag_pair_spearman, .wag_edge_weights_as_of and .wag_retrieve", info=true) }}
{%- endmacro %}


{% macro wag_on_run_end() -%}
  {#- on-run-end hook (dbt_project.yml): the SQL (re)creating the analyst table macros once the tables
      they read exist (after `dbt build`/`dbt run`); a no-op statement before the first build. -#}
  {%- if execute and adapter.get_relation(database=target.database, schema=target.schema, identifier='edges')
        and adapter.get_relation(database=target.database, schema=target.schema, identifier='metric_values') -%}
    {{ return(create_wag_retrieve(target.schema)) }}
  {%- else -%}
    {{ return('select 1') }}
  {%- endif -%}
{%- endmacro %}
