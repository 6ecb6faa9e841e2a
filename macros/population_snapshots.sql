{% macro wag_population_snapshot_select(snapshot_pairs, is_full_history) -%}
{#-
  The rows of correlations_population_snapshots (DESIGN.md §5, §6 "As of") from a relation of pooled
  pairs `snapshot_pairs` (snapshot_day, dataset, subject_key, edge_key, value_a, value_b: every
  paired subject-day <= snapshot_day; the keys of int_edge_paired_values, edge names from
  int_edge_keys): pooled Spearman without thresholds (rho_unchecked, variance_reason), then the dbt
  vars' validity rule. is_full_history: SQL boolean for the rows.
-#}
, snapshot_rho as (
    {{ spearman(snapshot_pairs, ['dataset', 'snapshot_day', 'edge_key'],
                'value_a', 'value_b', 0, subject_col='subject_key', min_subjects=0, ranks='value_counts') }}
),

snapshot_checked as (
    select
        r.dataset,
        r.snapshot_day,
        e.node_a,
        e.node_b,
        cast(n as integer)          as n,
        cast(n_subjects as integer) as n_subjects,
        spearman_rho                as rho_unchecked,
        null_reason                 as variance_reason,
        {{ spearman_checked_reason('n', 'n_subjects', 'null_reason', var('min_samples'), var('min_pop_subjects')) }}
                                    as null_reason
    from snapshot_rho as r
    inner join {{ ref('int_edge_keys') }} as e on e.edge_key = r.edge_key
)

select
    dataset,
    snapshot_day,
    {{ is_full_history }}                                                       as is_full_history,
    node_a,
    node_b,
    n,
    n_subjects,
    rho_unchecked,
    variance_reason,
    case when null_reason is null then rho_unchecked end                        as spearman_rho_signed,
    case when null_reason is null then abs(rho_unchecked) end                   as spearman_rho,
    case when null_reason is null then {{ fisher_z('rho_unchecked') }} end      as fisher_z,
    case when null_reason is null then {{ fisher_se('n') }} end                 as fisher_se,
    null_reason
from snapshot_checked
{%- endmacro %}


{% macro wag_insert_population_month_snapshots(relation, paired) -%}
{#-
  Post-hook of correlations_population_snapshots: inserts the month-end snapshots that are not in the
  table (every month-end before each dataset's last paired day, DESIGN.md §6 "As of"; on an incremental
  run the pre-hook deleted the stale ones, the others are kept), one (dataset, month) per statement so
  that one pooled ranking is in memory at a time; logs each. Nothing with var population_as_of =
  'exact' (queries then pool the subject-days <= t themselves). Returns a no-op statement.
-#}
  {%- if execute and var('population_as_of', 'snapshot') != 'exact' -%}
    {%- set months = run_query(
        "select p.dataset, cast(last_day(p.day) as string) as snapshot_day, count(*) as n_rows"
        ~ " from " ~ paired ~ " as p inner join (select dataset, max(day) as last_day from " ~ paired
        ~ " group by dataset) as d on d.dataset = p.dataset"
        ~ " where last_day(p.day) < d.last_day"
        ~ " and not exists (select 1 from " ~ relation ~ " as s where s.dataset = p.dataset"
        ~ " and s.snapshot_day = last_day(p.day) and not s.is_full_history)"
        ~ " group by 1, 2 order by 1, 2") -%}
    {%- for row in months.rows -%}
      {%- set pairs_sql -%}
        (select cast('{{ row[1] }}' as date) as snapshot_day, p.dataset, p.subject_key, p.edge_key,
                p.value_a, p.value_b
         from {{ paired }} as p
         where p.dataset = '{{ row[0] | replace("'", "''") }}' and p.day <= cast('{{ row[1] }}' as date))
      {%- endset -%}
      {%- set insert_sql -%}
        insert into {{ relation }}
        with snapshot_pairs as {{ pairs_sql }}
        {{ wag_population_snapshot_select('snapshot_pairs', 'false') }}
      {%- endset -%}
      {%- do run_query(insert_sql) -%}
      {{ log("correlations_population_snapshots: " ~ row[0] ~ " snapshot " ~ row[1] ~ " (" ~ loop.index ~ " of " ~ months.rows | length ~ ")", info=true) }}
    {%- endfor -%}
  {%- endif -%}
  {{ return('select 1') }}
{%- endmacro %}
