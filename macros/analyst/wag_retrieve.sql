{% macro wag_analyst_retrieve(schema) -%}
{#-
  The statement creating the DuckDB table macro <schema>.wag_retrieve (DESIGN.md §7-§8, paper
  Algorithm 2), installed after every build by the on-run-end hook (macros/analyst/_install.sql), so an
  analyst can call it from any DuckDB client with no Python:

    select * from wag_retrieve('pmdata:p01', ['deep_sleep_duration'], date '2020-01-15', 7, 0.8);

  Arguments
    subject       subject_id, e.g. 'pmdata:p01'
    metrics       list of primary metric ids (V_p)
    ref_day       reference day t^q (DATE); only days <= t^q are used (no look-ahead)
    window_days   window k^q in calendar days; NULL = 'all' (no local signal, w_local NULL)
    eta           openness in [0, 1]
    kappa, beta, gamma_local, include_unselected, rank_by, as_of, min_samples, min_pop_subjects,
    gamma_global, alpha_prior, alpha_pop, alpha_ind   named, defaults from dbt vars
    rank_by       the weight that ranks candidates: one of wag_rank_by_weights() (macros/analyst/rank_by.sql)

  Local weight of a candidate y of primary x, over C(x) (§7):
    zeta_y  = mean over the subject's days in [t^q - k^q + 1, t^q] of the abnormality score
              |v - mu| / sd (wag_node_window), mu and sd (sample) over the subject's days <= t^q
    m_y     = min-max of zeta over C(x) (all equal -> 0.5); NULL when y has no data in the window
    y_y     = eta m + (1 - eta)(1 - m);  w_local = sig(std_C(y), gamma_local)
    w_final = (1 - beta) w_global + beta w_local, or w_global where w_local is NULL
  Selection (§8): B = floor(eta kappa); k_p = ceil(B / |V_p|) (0 if B = 0); per primary x, rank C(x)
  minus primary nodes by the rank_by weight (w_final) desc, node id asc; keep the top k_p.

  Global weights: wag_edge_weights_as_of(subject, ref_day, V_p); when ref_day is at or after the
  subject's last numeric day and the dataset's full-history population snapshot and the weight
  arguments are the dbt vars' (the default reference day of `wag ask`), the same weights are read from
  the stored full-history table edge_weights instead (§6: it is that special case), not recomputed.

  Returns one row per requested primary node (role 'primary', rank 0; an id that is not a graph node
  is reported with is_selected = false and not counted in |V_p|) and per selected neighbour (role
  'neighbour'), with the edge's weight columns (w_prior, r_s/r_pop, p_prior, o_pop, i_ind, mu_pop,
  sigma_pop, mu_s, sigma_s, w_global, fallback), the local stages (zeta, m_norm, y_open, w_local),
  w_final and a prose `reason` (wag_cli/retrieve.py passes it through to Node.reason and the --json
  output; the answer and context text do not read it). Bad arguments (eta outside [0, 1],
  window_days < 1, ref_day NULL, an unknown rank_by) raise an error.
-#}
{%- set candidate_columns -%}
w.node_x, w.node_y, w.w_prior, w.r_s_signed, w.n_s, w.r_s_reason, w.r_pop_signed, w.n_pop,
           w.n_pop_subjects, w.r_pop_reason, w.pop_source, w.p_prior, w.o_pop, w.i_ind, w.mu_pop, w.sigma_pop,
           w.mu_s, w.sigma_s, w.w_global, w.fallback
{%- endset -%}
{%- set rank_by = wag_rank_by_weights() -%}
{%- set sql -%}
create or replace macro {{ schema }}.wag_retrieve(
    subject, metrics, ref_day, window_days, eta,
    kappa := {{ var('kappa') }},
    beta := {{ var('beta') }},
    gamma_local := {{ var('gamma_local') }},
    include_unselected := false,
    rank_by := 'w_final',
    as_of := true,
    {{ wag_global_weight_parameters() }}
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
        when rank_by not in ({% for name, weight in rank_by %}'{{ name }}'{{ ', ' if not loop.last }}{% endfor %})
            then error('wag_retrieve: rank_by must be one of {{ rank_by | map(attribute=0) | join(', ') }}; got ' || coalesce(rank_by, 'NULL'))
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
        {{ 'ref_day' if var('population_as_of', 'exact') == 'exact' else 'max(p.snapshot_day)' }} as pop_as_of_day
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
            {%- for name, weight in rank_by %}
            when '{{ name }}' then {{ weight }}
            {%- endfor %}
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
