{#-
  The analyst table macros (DESIGN.md §1 "SQL analysts", §6-§8): one file per table macro in this folder,
  each a dbt macro returning its `create or replace macro <schema>.<name>(...) as table` statement:
    wag_node_window         window statistics of a subject's metrics (wag_node_window.sql)
    wag_pair_spearman       Spearman of two metrics of one subject over a date range (wag_pair_spearman.sql)
    wag_edge_weights_as_of  the HBM weights of one subject as of a reference day (wag_edge_weights_as_of.sql)
    wag_retrieve            the query-conditioned retrieval, paper Algorithm 2 (wag_retrieve.sql)
  Installed in the warehouse by the on-run-end hook of dbt_project.yml (wag_on_run_end, after every
  `dbt build` / `dbt run`), or on demand by `dbt run-operation wag_install_retrieve`. On Spark the same
  rendered text is stored in table wag_sql_macros (macros/spark_retrieval.sql) and wag_cli/spark_retrieve.py
  reads the statements back by name, so create_wag_retrieve's text is the contract: the statements in
  this order, separated by a blank line.

  Tables (edge_weights, metric_values, nodes, correlations_*) are referenced by bare name, so the macros
  keep working when the DuckDB file is renamed or copied. Bare names resolve against the caller's current
  database: call the macros with the warehouse as the current database (open the file itself, or ATTACH
  it and USE it).
-#}

{% macro create_wag_retrieve(schema) -%}
  {#- The SQL (re)creating the four analyst table macros in `schema`, in dependency order. -#}
  {{ return([wag_analyst_node_window(schema), wag_analyst_pair_spearman(schema),
             wag_analyst_edge_weights_as_of(schema), wag_analyst_retrieve(schema)] | join('\n\n')) }}
{%- endmacro %}


{% macro wag_install_retrieve() -%}
  {#- `dbt run-operation wag_install_retrieve`: (re)create the four analyst table macros over the existing
      tables of the target schema (the on-run-end hook does the same after every build). -#}
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


{% macro wag_global_weight_parameters() -%}
{#- The named parameters, with the dbt vars as defaults, that the table macros wag_edge_weights_as_of
    and wag_retrieve share: the validity thresholds (DESIGN.md §5) and the HBM constants (§6). -#}
min_samples := {{ var('min_samples') }},
    min_pop_subjects := {{ var('min_pop_subjects') }},
    gamma_global := {{ var('gamma_global') }},
    alpha_prior := {{ var('alpha_prior') }},
    alpha_pop := {{ var('alpha_pop') }},
    alpha_ind := {{ var('alpha_ind') }}
{%- endmacro %}
