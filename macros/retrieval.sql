{% macro create_wag_retrieve(edge_weights_relation, metric_values_relation) -%}
{#-
  Creates two DuckDB table macros in the warehouse.

  wag_node_window(subject, ref_day, window_days): one row per metric the subject has up to ref_day,
  with the usual level (mean, sample sd over every day <= ref_day: no look-ahead), the window
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

  Tables are referenced by bare name, resolved in the macro's own schema at call time, so the macro
  keeps working when the DuckDB file is renamed or attached under another name.

  Returns one row per primary node (role 'primary', rank 0) and per selected neighbour
  (role 'neighbour'), with every weight, the window statistics and the reason it was chosen.
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
           count(value) as n_history_days
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
    count(w.day)                 as n_window_days,
    avg(w.value)                 as window_mean,
    min(w.value)                 as window_min,
    max(w.value)                 as window_max,
    avg(w.z)                     as zeta,
    list({'day': w.day, 'value': w.value, 'value_text': w.value_text, 'z': w.z} order by w.day)
        filter (where w.day is not null) as daily
from usual as u
left join in_window as w using (metric_id)
group by u.metric_id, u.n_history_days, u.usual_mean, u.usual_sd;

create or replace macro {{ edge_weights_relation.schema }}.wag_retrieve(
    subject, metrics, ref_day, window_days, eta,
    kappa := {{ var('kappa') }},
    beta := {{ var('beta') }},
    gamma_local := {{ var('gamma_local') }},
    include_unselected := false
) as table
with
primaries as (
    select distinct unnest(metrics) as node_id
),
settings as (
    select
        count(*)                                              as n_primary,
        cast(floor(eta * kappa + 1e-9) as integer)            as budget,
        case when floor(eta * kappa + 1e-9) = 0 or count(*) = 0 then 0
             else cast(ceil(floor(eta * kappa + 1e-9) / count(*)) as integer) end as k_per_primary
    from primaries
),
candidates as (
    select w.*
    from {{ edge_weights_relation.identifier }} as w
    where w.subject_id = subject
      and w.node_x in (select node_id from primaries)
),
window_stats as (
    select metric_id, n_window_days, case when window_days is not null then zeta end as zeta
    from wag_node_window(subject, ref_day, window_days)
),
local_raw as (
    select
        c.node_x, c.node_y, c.w_prior, c.w_global, c.fallback, c.r_s_signed, c.r_pop_signed,
        ws.zeta, coalesce(ws.n_window_days, 0) as n_window_days,
        min(ws.zeta) over gx as zeta_min,
        max(ws.zeta) over gx as zeta_max
    from candidates as c
    left join window_stats as ws on ws.metric_id = c.node_y
    window gx as (partition by c.node_x)
),
local_norm as (
    select
        *,
        case when zeta is null then null
             when zeta_max = zeta_min then 0.5
             else (zeta - zeta_min) / (zeta_max - zeta_min) end as m_norm
    from local_raw
),
local_open as (
    select *, eta * m_norm + (1 - eta) * (1 - m_norm) as y_open
    from local_norm
),
local_std as (
    select
        *,
        case when y_open is null then null
             when count(y_open) over gx >= 2 and stddev_samp(y_open) over gx > 0
                 then (y_open - avg(y_open) over gx) / stddev_samp(y_open) over gx
             else 0 end as y_std
    from local_open
    window gx as (partition by node_x)
),
fused as (
    select
        *,
        case when y_std is not null then 1.0 / (1.0 + exp(-gamma_local * y_std)) end as w_local
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
    where f.node_y not in (select node_id from primaries)
)
select
    'primary'                   as role,
    p.node_id                   as primary_node,
    p.node_id                   as node_id,
    0                           as rank,
    cast(null as double)        as w_prior,
    cast(null as double)        as w_global,
    cast(null as varchar)       as fallback,
    ws.zeta                     as zeta,
    coalesce(ws.n_window_days, 0) as n_window_days,
    cast(null as double)        as w_local,
    cast(null as double)        as w_final,
    true                        as is_selected,
    'primary: named in the question' as reason
from primaries as p
left join window_stats as ws on ws.metric_id = p.node_id
union all
select
    'neighbour'                 as role,
    r.node_x                    as primary_node,
    r.node_y                    as node_id,
    r.rank,
    r.w_prior,
    r.w_global,
    r.fallback,
    r.zeta,
    r.n_window_days,
    r.w_local,
    r.w_final,
    r.rank <= s.k_per_primary   as is_selected,
    printf('rank %d of %d neighbours of %s by w_final %.3f (w_global %.3f from %s evidence%s)',
           r.rank, r.n_candidates, r.node_x, r.w_final, r.w_global, r.fallback,
           case when r.w_local is null then '; no data in the window, local weight not used'
                else printf('; window abnormality zeta %.2f, w_local %.3f', r.zeta, r.w_local) end)
                                as reason
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
