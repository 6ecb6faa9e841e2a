{% macro wag_pooled_rank_method(paired, datasets=none) -%}
{#-
  How correlations_population_snapshots ranks the pooled pairs of `paired` (int_edge_paired_values),
  restricted to the SQL list `datasets` (e.g. "select dataset from ..."; none = every dataset):
  'value_counts' (spearman() ranks from per-value counts) when the distinct (edge, value) groups of
  both series are at most 10 % of the rows (tied wearable values: integer steps, minutes, scores;
  1.5x faster on the 500-subject population, 1 % distinct), otherwise 'window' (all-distinct values:
  value counts were 3.5x slower there). HyperLogLog estimates (approx_count_distinct), one scan.
  Before execution (parsing), 'window'. var pooled_ranks ('auto', 'window', 'value_counts') other than
  'auto' forces a method (unit tests, benchmarks).
-#}
  {%- set forced = var('pooled_ranks', 'auto') -%}
  {%- if forced not in ('auto', 'window', 'value_counts') -%}
    {{ exceptions.raise_compiler_error("var pooled_ranks must be 'auto', 'window' or 'value_counts', got '" ~ forced ~ "'") }}
  {%- endif -%}
  {%- if forced != 'auto' -%}{{ return(forced) }}{%- endif -%}
  {%- if not execute -%}{{ return('window') }}{%- endif -%}
  {%- set where = 'true' if datasets is none else 'dataset in (' ~ datasets ~ ')' -%}
  {%- set row = run_query(
      "select count(*), approx_count_distinct(" ~ wag_group_key(['edge_key', 'value_a']) ~ ")"
      ~ " + approx_count_distinct(" ~ wag_group_key(['edge_key', 'value_b']) ~ ")"
      ~ " from " ~ paired ~ " where " ~ where).rows[0] -%}
  {%- set n_rows = row[0] | int -%}
  {%- set n_groups = (row[1] or 0) | int -%}
  {{ return('value_counts' if n_rows > 0 and n_groups <= 0.1 * 2 * n_rows else 'window') }}
{%- endmacro %}


{% macro wag_population_snapshot_select(snapshot_pairs, is_full_history, ranks='window') -%}
{#-
  The rows of correlations_population_snapshots (DESIGN.md §5, §6 "As of") from a relation of pooled
  pairs `snapshot_pairs` (snapshot_day, dataset, subject_key, edge_key, value_a, value_b: every
  paired subject-day <= snapshot_day; the keys of int_edge_paired_values, edge names from
  int_edge_keys): pooled Spearman without thresholds (rho_unchecked, variance_reason), then the dbt
  vars' validity rule. is_full_history: SQL boolean for the rows. ranks: spearman()'s rank method
  (wag_pooled_rank_method).
-#}
, snapshot_rho as (
    {{ spearman(snapshot_pairs, ['dataset', 'snapshot_day', 'edge_key'],
                'value_a', 'value_b', 0, subject_col='subject_key', min_subjects=0, ranks=ranks) }}
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
    {%- set ranks = {} -%}
    {%- for row in months.rows -%}
      {%- if row[0] not in ranks -%}
        {%- do ranks.update({row[0]: wag_pooled_rank_method(paired, wag_sql_string(row[0]))}) -%}
      {%- endif -%}
      {%- set pairs_sql -%}
        (select cast('{{ row[1] }}' as date) as snapshot_day, p.dataset, p.subject_key, p.edge_key,
                p.value_a, p.value_b
         from {{ paired }} as p
         where p.dataset = {{ wag_sql_string(row[0]) }} and p.day <= cast('{{ row[1] }}' as date))
      {%- endset -%}
      {%- set insert_sql -%}
        insert into {{ relation }}
        with snapshot_pairs as {{ wag_not_materialized() }} {{ pairs_sql }}
        {{ wag_population_snapshot_select('snapshot_pairs', 'false', ranks[row[0]]) }}
      {%- endset -%}
      {%- do run_query(insert_sql) -%}
      {{ log("correlations_population_snapshots: " ~ row[0] ~ " snapshot " ~ row[1] ~ " (" ~ loop.index ~ " of " ~ months.rows | length ~ ", ranks by " ~ ranks[row[0]] ~ ")", info=true) }}
    {%- endfor -%}
  {%- endif -%}
  {{ return('select 1') }}
{%- endmacro %}
