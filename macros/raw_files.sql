{#-
  Raw-file access for staging models (DESIGN.md §1, §2).

  DuckDB-only syntax (file readers, glob) lives here behind adapter.dispatch so that
  another engine (dbt-spark) can supply its own implementation.
-#}

{% macro wag_data_path(relative_path) -%}
  {#- Absolute-or-relative path of a file under var('data_dir'), with forward slashes. -#}
  {%- set root = var('data_dir') | string -%}
  {{- return(root.rstrip('/') ~ '/' ~ relative_path.lstrip('/')) -}}
{%- endmacro %}


{% macro wag_files_exist(relative_glob) -%}
  {#- True when at least one file matches `relative_glob` under data_dir.
      At parse time (execute = false) it answers false; models then compile to their empty branch. -#}
  {{ return(adapter.dispatch('wag_files_exist', 'wag')(relative_glob)) }}
{%- endmacro %}

{% macro duckdb__wag_files_exist(relative_glob) -%}
  {%- if not execute -%}{{ return(false) }}{%- endif -%}
  {%- set sql -%}
    select count(*) as n from glob('{{ wag_data_path(relative_glob) }}')
  {%- endset -%}
  {%- set result = run_query(sql) -%}
  {{ return(result.columns[0].values()[0] | int > 0) }}
{%- endmacro %}

{% macro default__wag_files_exist(relative_glob) -%}
  {{ exceptions.raise_compiler_error("wag_files_exist is not implemented for adapter " ~ adapter.type()) }}
{%- endmacro %}


{% macro wag_read_csv(relative_glob, options='') -%}
  {#- A table expression reading every CSV matching `relative_glob` under data_dir.
      `options` is extra reader options (DuckDB read_csv named parameters). The file name is
      exposed as column `filename` so models can derive the participant from the path. -#}
  {{ return(adapter.dispatch('wag_read_csv', 'wag')(relative_glob, options)) }}
{%- endmacro %}

{% macro duckdb__wag_read_csv(relative_glob, options='') -%}
  read_csv('{{ wag_data_path(relative_glob) }}', filename = true, header = true{% if options %}, {{ options }}{% endif %})
{%- endmacro %}


{% macro wag_read_json(relative_glob, options='') -%}
  {#- A table expression reading every JSON file (one top-level array each) matching
      `relative_glob` under data_dir, with a `filename` column. -#}
  {{ return(adapter.dispatch('wag_read_json', 'wag')(relative_glob, options)) }}
{%- endmacro %}

{% macro duckdb__wag_read_json(relative_glob, options='') -%}
  read_json('{{ wag_data_path(relative_glob) }}', filename = true, format = 'array'{% if options %}, {{ options }}{% endif %})
{%- endmacro %}


{% macro wag_empty_raw() -%}
  {#- The empty relation with the staging contract's columns (used when a dataset folder is absent). -#}
  select
    cast(null as varchar) as dataset,
    cast(null as varchar) as subject_id,
    cast(null as date)    as day,
    cast(null as varchar) as raw_field,
    cast(null as double)  as value,
    cast(null as varchar) as value_text
  where false
{%- endmacro %}
