{% macro wag_spark_on_run_end() -%}
  {#- on-run-end hook on Spark (dbt_project.yml; issue 12): Spark has no table macros, so the rendered
      source of the DuckDB table macros (create_wag_retrieve, with this build's vars and the Spark
      implementations of dispatched fragments) is stored in the table wag_sql_macros, from which
      wag_cli/spark_retrieve.py generates the parameterised Spark query of wag_retrieve. -#}
  {%- if execute and adapter.get_relation(database=target.database, schema=target.schema, identifier='edges')
        and adapter.get_relation(database=target.database, schema=target.schema, identifier='metric_values') -%}
    {#- a Hive-catalog Parquet table cannot be replaced in place (REPLACE TABLE AS SELECT): drop it first -#}
    {%- do run_query('drop table if exists ' ~ target.schema ~ '.wag_sql_macros') -%}
    {{ return('create table ' ~ target.schema ~ '.wag_sql_macros using parquet as select '
              ~ wag_spark_literal(create_wag_retrieve(target.schema)) ~ ' as sql_text') }}
  {%- else -%}
    {{ return('select 1') }}
  {%- endif -%}
{%- endmacro %}
