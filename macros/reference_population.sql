{% macro wag_reference_datasets_filter(column) -%}
{#-
  SQL condition on `column` (a dataset name) from dbt var reference_population (DESIGN.md §6 "Small
  cohorts" rule 1): 'auto' (default) = every dataset; 'none' = no dataset; a list (or a comma-separated
  text) = those datasets only. Names reach SQL only through wag_sql_string.
-#}
  {%- set ref = var('reference_population', 'auto') -%}
  {%- if ref is string -%}
    {%- if ref | trim | lower == 'auto' -%}{{ return('true') }}
    {%- elif ref | trim | lower in ('none', '') -%}{{ return('false') }}
    {%- else -%}{%- set ref = ref.split(',') -%}
    {%- endif -%}
  {%- endif -%}
  {%- set names = [] -%}
  {%- for d in ref if (d | string | trim) -%}{%- do names.append(wag_sql_string(d | string | trim)) -%}{%- endfor -%}
  {%- if names | length == 0 -%}{{ return('false') }}{%- endif -%}
  {{ return(column ~ ' in (' ~ names | join(', ') ~ ')') }}
{%- endmacro %}


{% macro wag_reference_population_select(snapshots, targets, min_samples, min_pop_subjects, dispatched_agg=false) -%}
{#-
  The reference population of DESIGN.md §6 "Small cohorts" rule 1, as one SELECT: for every target
  dataset T (relation `targets`, column `dataset`) and prior edge (node_a < node_b), the fixed-effect
  meta-analysis of the full-history pooled correlations of the OTHER datasets d (d <> T, allowed by var
  reference_population) that are valid under `min_samples` / `min_pop_subjects` (§5):
      fz_d   = atanh(clamp(r_d))  (signed)           w_d = n_d - 3
      fz_ref = sum(w_d fz_d) / sum(w_d)              se_ref = 1 / sqrt(sum(w_d))
      r_ref  = tanh(fz_ref)  (the sign from the combined value), fisher_z = |fz_ref|
  Each dataset's instrument and scale stay within its own correlation; only the Fisher z values are
  combined. Other people's full history is prior knowledge, not look-ahead (§6), so the as-of macro
  uses the same full-history rows at every reference day.
  snapshots: correlations_population_snapshots (is_full_history rows are read; rho_unchecked, n,
             n_subjects and variance_reason, so the thresholds may differ from the dbt vars).
  Output: dataset (= T), node_a, node_b, n (sum n_d), n_subjects (sum), n_datasets, spearman_rho_signed,
  spearman_rho, fisher_z, fisher_se, sources (the reference datasets, ', '-separated, sorted).
  dispatched_agg: sources by wag_string_agg (the model, which also builds on Spark: Spark has no
  string_agg … order by); false keeps DuckDB's string_agg text for the analyst macro, whose source
  spark_retrieve reads as DuckDB SQL. On DuckDB both are the same text.
-#}
select
    t.dataset,
    p.node_a,
    p.node_b,
    cast(sum(p.n) as integer)                                              as n,
    cast(sum(p.n_subjects) as integer)                                     as n_subjects,
    cast(count(*) as integer)                                              as n_datasets,
    tanh(sum((p.n - 3) * sign(p.rho_unchecked) * {{ fisher_z('p.rho_unchecked') }}) / sum(p.n - 3))
                                                                           as spearman_rho_signed,
    abs(tanh(sum((p.n - 3) * sign(p.rho_unchecked) * {{ fisher_z('p.rho_unchecked') }}) / sum(p.n - 3)))
                                                                           as spearman_rho,
    abs(sum((p.n - 3) * sign(p.rho_unchecked) * {{ fisher_z('p.rho_unchecked') }}) / sum(p.n - 3))
                                                                           as fisher_z,
    1.0 / sqrt(sum(p.n - 3))                                               as fisher_se,
    {% if dispatched_agg %}{{ wag_string_agg('p.dataset', "', '", 'p.dataset') }}{% else %}string_agg(p.dataset, ', ' order by p.dataset){% endif %}                         as sources
from {{ targets }} as t
inner join {{ snapshots }} as p
    on p.dataset <> t.dataset
where p.is_full_history
  and {{ wag_reference_datasets_filter('p.dataset') }}
  and p.rho_unchecked is not null
  and ({{ spearman_checked_reason('p.n', 'p.n_subjects', 'p.variance_reason', min_samples, min_pop_subjects) }}) is null
group by t.dataset, p.node_a, p.node_b
{%- endmacro %}
