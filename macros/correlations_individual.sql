{#-
  correlations_individual (DESIGN.md §5, issue 10): its SELECT, shared by the model and the post-hook
  that ranks the other subject batches, and the batch helpers.
-#}

{% macro wag_individual_batches(paired) -%}
  {#- Number of subject batches for correlations_individual: ceil(rows of `paired` /
      var('individual_batch_rows')), at least 1; 1 when the var is 0 (unit tests) or before execution.
      Counted on the whole table, so a build and its post-hook agree whatever the run's mode. -#}
  {%- set per_batch = var('individual_batch_rows', 40000000) | int -%}
  {%- if not execute or per_batch <= 0 -%}{{ return(1) }}{%- endif -%}
  {%- set n_rows = run_query("select count(*) from " ~ paired).rows[0][0] | int -%}
  {{ return([1, ((n_rows + per_batch - 1) // per_batch) | int] | max) }}
{%- endmacro %}


{% macro wag_batch_predicate(key, batch, n_batches) -%}
  {#- SQL predicate: the integer `key` falls in batch `batch` of `n_batches` (non-negative modulo, for
      negative hash keys too); `true` for one batch. -#}
  {%- if n_batches <= 1 -%}true{%- else -%}((({{ key }}) % {{ n_batches }}) + {{ n_batches }}) % {{ n_batches }} = {{ batch }}{%- endif -%}
{%- endmacro %}


{% macro wag_insert_individual_batches(relation, paired) -%}
  {#- Post-hook of correlations_individual: batches 1.. of wag_individual_batches, one INSERT each, for
      the subjects of `paired` that have no row in `relation` yet (the model's SELECT wrote batch 0 of
      the subjects it recomputed; kept subjects have their rows), so the hook does not depend on whether
      the run was incremental. Logs each batch. Returns a no-op statement. -#}
  {%- set n = wag_individual_batches(paired) -%}
  {%- if execute and n > 1 -%}
    {%- for b in range(1, n) -%}
      {%- set insert_sql -%}
        insert into {{ relation }}
        with paired as {{ wag_not_materialized() }} (
            select p.* from {{ paired }} as p
            where {{ wag_batch_predicate('p.subject_key', b, n) }}
              and p.subject_key not in (
                  select k.subject_key from {{ ref('int_subject_keys') }} as k
                  inner join (select distinct dataset, subject_id from {{ relation }}) as c
                      on c.dataset = k.dataset and c.subject_id = k.subject_id)
        )
        {{ wag_individual_select('paired') }}
      {%- endset -%}
      {%- do run_query(insert_sql) -%}
      {{ log("correlations_individual: subject batch " ~ (b + 1) ~ " of " ~ n, info=true) }}
    {%- endfor -%}
  {%- endif -%}
  {{ return('select 1') }}
{%- endmacro %}


{% macro wag_individual_select(paired) -%}
{#-
  The rows of correlations_individual (DESIGN.md §5) from the CTE `paired` (rows of
  int_edge_paired_values), written after it: `with paired as (...) {{ wag_individual_select('paired') }}`;
  the model's SELECT and its batch post-hook share it.
-#}
, rho as (
    {{ spearman('paired', ['dataset', 'subject_key', 'edge_key'],
                'value_a', 'value_b', var('min_samples')) }}
)

select
    rho.dataset,
    s.subject_id,
    e.node_a,
    e.node_b,
    cast(rho.n as integer)                                                 as n,
    rho.spearman_rho                                                       as spearman_rho_signed,
    abs(rho.spearman_rho)                                                  as spearman_rho,
    case when rho.spearman_rho is not null then {{ fisher_z('rho.spearman_rho') }} end as fisher_z,
    case when rho.spearman_rho is not null then {{ fisher_se('rho.n') }} end          as fisher_se,
    rho.null_reason
from rho
inner join {{ ref('int_subject_keys') }} as s
    on s.subject_key = rho.subject_key and s.dataset = rho.dataset
inner join {{ ref('int_edge_keys') }} as e on e.edge_key = rho.edge_key
{%- endmacro %}
