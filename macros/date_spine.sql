{% macro wag_days_between(start_day, end_day) -%}
  {#- A set-returning expression giving every DATE from start_day to end_day inclusive
      (one row per calendar day). DuckDB: unnest(generate_series(...)); other engines dispatch. -#}
  {{ return(adapter.dispatch('wag_days_between', 'wag')(start_day, end_day)) }}
{%- endmacro %}

{% macro duckdb__wag_days_between(start_day, end_day) -%}
  cast(unnest(generate_series(cast({{ start_day }} as timestamp), cast({{ end_day }} as timestamp), interval 1 day)) as date)
{%- endmacro %}

{% macro spark__wag_days_between(start_day, end_day) -%}
  explode(sequence(to_date({{ start_day }}), to_date({{ end_day }}), interval 1 day))
{%- endmacro %}
