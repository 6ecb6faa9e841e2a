{% macro wag_pooled_rank_method(series, where='true') -%}
{#-
  How the unpacked ('paired') form of wag_edge_spearman ranks the pooled pairs (Spark, or more bit
  fields than var corrected_rank_max_words): 'value_counts' (spearman() ranks from per-value counts)
  when the distinct (dataset, metric, value) groups of `series` (int_metric_series, rows satisfying
  `where`) are at most 10 % of its rows (tied wearable values: integer steps, minutes, scores;
  1.5x faster on the 500-subject population, 1 % distinct), otherwise 'window' (all-distinct values:
  value counts were 3.5x slower there). HyperLogLog estimate (approx_count_distinct), one scan.
  Before execution (parsing), 'window'. var pooled_ranks ('auto', 'window', 'value_counts') other than
  'auto' forces a method (unit tests, benchmarks).
-#}
  {%- set forced = var('pooled_ranks', 'auto') -%}
  {%- if forced not in ('auto', 'window', 'value_counts') -%}
    {{ exceptions.raise_compiler_error("var pooled_ranks must be 'auto', 'window' or 'value_counts', got '" ~ forced ~ "'") }}
  {%- endif -%}
  {%- if forced != 'auto' -%}{{ return(forced) }}{%- endif -%}
  {%- if not execute -%}{{ return('window') }}{%- endif -%}
  {%- set row = run_query(
      "select count(*), approx_count_distinct(" ~ wag_group_key(['dataset', 'metric_id', 'value']) ~ ")"
      ~ " from " ~ series ~ " where value is not null and (" ~ where ~ ")").rows[0] -%}
  {%- set n_rows = row[0] | int -%}
  {%- set n_groups = (row[1] or 0) | int -%}
  {{ return('value_counts' if n_rows > 0 and n_groups <= 0.1 * n_rows else 'window') }}
{%- endmacro %}


{% macro wag_population_snapshot_select(pooled, snapshot_day, is_full_history) -%}
{#-
  The rows of correlations_population_snapshots (DESIGN.md §5, §6 "As of") from a relation `pooled`
  of wag_edge_spearman(..., 'pooled') rows (dataset, edge_key, n, n_subjects, rho_unchecked,
  variance_reason, last_day) of one snapshot per dataset: the dbt vars' validity rule, edge names
  from int_edge_keys. snapshot_day: SQL expression (may read `pooled`'s columns); is_full_history: SQL
  boolean for the rows.
-#}
, snapshot_checked as (
    select
        r.dataset,
        {{ snapshot_day }}          as snapshot_day,
        e.node_a,
        e.node_b,
        cast(r.n as integer)          as n,
        cast(r.n_subjects as integer) as n_subjects,
        r.rho_unchecked,
        r.variance_reason,
        {{ spearman_checked_reason('r.n', 'r.n_subjects', 'r.variance_reason', var('min_samples'), var('min_pop_subjects')) }}
                                    as null_reason
    from {{ pooled }} as r
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


{% macro wag_insert_population_month_snapshots(relation, series) -%}
{#-
  Post-hook of correlations_population_snapshots: inserts the month-end snapshots that are not in the
  table (every month-end with data before each dataset's full-history snapshot day, or every
  var('population_snapshot_months')-th one, wag_snapshot_month_filter; DESIGN.md §6 "As of"; on an incremental run the pre-hook deleted the stale ones, the others are kept), one
  (dataset, month) per statement, each the pooled correlations of the dataset's subject-days <= the
  month-end (wag_edge_spearman over int_metric_series, the bit-field layout measured once for all);
  logs each. Nothing with var population_as_of = 'exact' (queries then pool the subject-days <= t
  themselves). Returns a no-op statement.
-#}
  {%- if execute and var('population_as_of', 'exact') != 'exact' -%}
    {%- set months = run_query(
        "select p.dataset, cast(p.month_end as string) as snapshot_day"
        ~ " from (select distinct dataset, last_day(day) as month_end from " ~ series ~ ") as p"
        ~ " inner join (select dataset, max(snapshot_day) as last_day from " ~ relation
        ~ " where is_full_history group by dataset) as d on d.dataset = p.dataset"
        ~ " where p.month_end < d.last_day and " ~ wag_snapshot_month_filter('p.month_end')
        ~ " and not exists (select 1 from " ~ relation ~ " as s where s.dataset = p.dataset"
        ~ " and s.snapshot_day = p.month_end and not s.is_full_history)"
        ~ " order by 1, 2") -%}
    {%- set layout = wag_corrected_rank_layout(series, 'pooled') -%}
    {%- if layout['method'] == 'packed' and var('pooled_form', 'wide') == 'wide' and wag_wide_fits(series) -%}
      {#- the wide form: the cut-off-independent work once per dataset (macros/wide_sums.sql) -#}
      {%- do wag_insert_wide_month_snapshots(relation, series, months.rows, layout['bits']) -%}
    {%- else -%}
    {%- for row in months.rows -%}
      {%- set where = "dataset = " ~ wag_sql_string(row[0]) ~ " and day <= cast('" ~ row[1] ~ "' as date)" -%}
      {%- set insert_sql -%}
        insert into {{ relation }}
        with snapshot_pooled as (
        {{ wag_edge_spearman(series, 'pooled', where, layout) }}
        )
        {{ wag_population_snapshot_select('snapshot_pooled', "cast('" ~ row[1] ~ "' as date)", 'false') }}
      {%- endset -%}
      {%- do run_query(insert_sql) -%}
      {{ log("correlations_population_snapshots: " ~ row[0] ~ " snapshot " ~ row[1] ~ " (" ~ loop.index ~ " of " ~ months.rows | length ~ ", " ~ layout['method'] ~ ")", info=true) }}
    {%- endfor -%}
    {%- endif -%}
  {%- endif -%}
  {{ return('select 1') }}
{%- endmacro %}


{% macro wag_snapshot_month_filter(month_end) -%}
  {#- SQL predicate: the month-end `month_end` gets a population snapshot. var population_snapshot_months
      = 1 (default): every month-end (DESIGN.md §6: the last month-end <= t); k > 1: the month-ends of
      months divisible by k (3: March, June, September, December), a coarser snapshot <= t that
      retrieval states as pop_as_of_day the same way, for k times fewer pooled rankings. -#}
  {%- set k = var('population_snapshot_months', 1) | int -%}
  {%- if k < 1 or k > 12 or 12 % k != 0 -%}
    {{ exceptions.raise_compiler_error("var population_snapshot_months must divide 12 (1, 2, 3, 4, 6, 12), got " ~ k) }}
  {%- endif -%}
  {%- if k == 1 -%}true{%- else -%}month({{ month_end }}) % {{ k }} = 0{%- endif -%}
{%- endmacro %}
