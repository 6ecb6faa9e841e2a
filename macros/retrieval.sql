{% macro create_wag_retrieve(edge_weights_relation, metric_values_relation) -%}
{#-
  Creates two DuckDB table macros in the warehouse.

  wag_node_window(subject, ref_day, window_days): one row per metric the subject has up to ref_day,
  with the usual level (mean, sample sd over every day <= ref_day: no look-ahead), its last day
  with data up to ref_day (last_day), the window
  [ref_day - window_days + 1, ref_day] (NULL = every day <= ref_day): days with data, mean, min,
  max, zeta = mean |v - mu| / sd (DESIGN.md §4, §7), and the daily values. It is the single
  definition of the window statistics, used by wag_retrieve and by the CLI.

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
{%- set sql -%}
create or replace macro {{ edge_weights_relation.schema }}.wag_node_window(subject, ref_day, window_days) as table
with
history as (
    select v.metric_id, v.day, v.value, v.value_text
    from {{ metric_values_relation.identifier }} as v
    where v.subject_id = subject and v.day <= ref_day
),
usual as (
    select metric_id, avg(value) as usual_mean, stddev_samp(value) as usual_sd,
           count(value) as n_history_days, max(day) as last_day
    from history
    group by metric_id
),
in_window as (
    select
        h.*,
        case when u.usual_sd > 0 then abs(h.value - u.usual_mean) / u.usual_sd end as z
    from history as h
    inner join usual as u using (metric_id)
    where window_days is null or date_diff('day', h.day, ref_day) < window_days
)
select
    u.metric_id,
    u.n_history_days,
    u.usual_mean,
    u.usual_sd,
    u.last_day,
    count(w.day)                 as n_window_days,
    avg(w.value)                 as window_mean,
    -- window mean against the usual level, in usual standard deviations (NULL when sd is 0/undefined)
    case when u.usual_sd > 0 then (avg(w.value) - u.usual_mean) / u.usual_sd end as window_dev_sd,
    min(w.value)                 as window_min,
    max(w.value)                 as window_max,
    avg(w.z)                     as zeta,
    list({'day': w.day, 'value': w.value, 'value_text': w.value_text, 'z': w.z} order by w.day)
        filter (where w.day is not null) as daily
from usual as u
left join in_window as w using (metric_id)
group by u.metric_id, u.n_history_days, u.usual_mean, u.usual_sd, u.last_day;

create or replace macro {{ edge_weights_relation.schema }}.wag_retrieve(
    subject, metrics, ref_day, window_days, eta,
    kappa := {{ var('kappa') }},
    beta := {{ var('beta') }},
    gamma_local := {{ var('gamma_local') }},
    include_unselected := false
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
candidates as (
    select w.*
    from {{ edge_weights_relation.identifier }} as w
    where w.subject_id = subject
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
ranked as (
    select
        f.*,
        row_number() over (partition by f.node_x order by f.w_final desc, f.node_y asc) as rank,
        count(*) over (partition by f.node_x) as n_candidates
    from final as f
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
    cast(null as double)        as w_final
from primaries as p
left join window_stats as ws on ws.metric_id = p.node_id
union all
select
    'neighbour'                 as role,
    r.node_x                    as primary_node,
    r.node_y                    as node_id,
    r.rank,
    r.rank <= s.k_per_primary   as is_selected,
    printf('rank %d of %d neighbours of %s by w_final %.3f (w_global %.3f from %s evidence%s)',
           r.rank, r.n_candidates, r.node_x, r.w_final, r.w_global, r.fallback,
           case when r.w_local is null then '; no local weight (no data in the window, or window all)'
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
    r.w_final
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
  {%- set ew = api.Relation.create(database=target.database, schema=target.schema, identifier='edge_weights') -%}
  {%- set mv = api.Relation.create(database=target.database, schema=target.schema, identifier='metric_values') -%}
  {%- do run_query(create_wag_retrieve(ew, mv)) -%}
  {{ log("created " ~ target.schema ~ ".wag_node_window and .wag_retrieve", info=true) }}
{%- endmacro %}
