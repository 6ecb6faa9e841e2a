{% macro apple_health_local(expr) -%}
  {#- The local wall-clock TIMESTAMP of an Apple Health date ('2024-03-01 00:30:00 +0200'): the time as
      written, offset dropped (each record's own offset already made it local, so its date is the local
      day, issue 28). NULL when not a (plausible) timestamp. Shared by staging and raw_rejected. -#}
  {{ wag_parse_timestamp("regexp_replace(trim(" ~ expr ~ "), '\\s*[+-][0-9]{2}:?[0-9]{2}$', '')") }}
{%- endmacro %}


{% macro apple_health_iso(expr) -%}
  {#- An Apple Health date as ISO text with its zone ('2024-03-01 00:30:00+02:00'), for the instant. -#}
  regexp_replace(trim({{ expr }}), '\s*([+-][0-9]{2}):?([0-9]{2})$', '\1:\2')
{%- endmacro %}


{% macro wag_set_memory_limit(limit) -%}
  {#- `set memory_limit` on DuckDB (hook of the Apple Health models, issue 28) when an Apple Health export
      is there to read; nothing otherwise and on other engines. The limit is the whole connection's: set
      while another dbt thread holds more memory it is refused, so a build without Apple exports (every
      research dataset, bench/scale.py at 2,000 subjects with 2 threads) must not set it. -#}
  {%- if target.type == 'duckdb' and wag_files_exist('apple_health/*/**') -%}set memory_limit = {{ wag_sql_string(limit) }}{%- else -%}select 1{%- endif -%}
{%- endmacro %}
