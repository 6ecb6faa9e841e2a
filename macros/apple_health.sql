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
  {#- `set memory_limit` on DuckDB (hook of the Apple Health models, issue 28); nothing on other engines. -#}
  {%- if target.type == 'duckdb' -%}set memory_limit = {{ wag_sql_string(limit) }}{%- else -%}select 1{%- endif -%}
{%- endmacro %}
