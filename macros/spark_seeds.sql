{#-
  Seeds on Spark (issue 12). dbt-spark 1.11's session connection binds seed values by pasting
  `'<value>'` into the INSERT without escaping: a text with an apostrophe (the catalog's "today's",
  "person's") breaks the statement, and an empty cell becomes the text 'None'. This project-level
  spark__load_csv_rows (dbt looks in the root project first) writes each value as a Spark literal
  instead: NULL for an empty cell, numbers as written, and text with every ' and \ spelled chr(39) /
  chr(92), so no escaping rule of the parser matters (profiles.yml keeps spark.sql.parser.
  escapedStringLiterals = true, DuckDB's literal semantics).
-#}

{% macro wag_spark_literal(value) -%}
  {%- if value is none -%}null
  {%- elif value is number -%}{{ value }}
  {%- else -%}
    {%- set text = value | string -%}
    '{{ text | replace("\\", "' || chr(92) || '") | replace("'", "' || chr(39) || '") }}'
  {%- endif -%}
{%- endmacro %}

{% macro spark__load_csv_rows(model, agate_table) %}
  {% set batch_size = get_batch_size() %}
  {% set column_override = model['config'].get('column_types', {}) %}
  {% set statements = [] %}
  {% for chunk in agate_table.rows | batch(batch_size) %}
      {% set sql %}
          insert into {{ this.render() }} values
          {% for row in chunk -%}
              ({%- for col_name in agate_table.column_names -%}
                  {%- set inferred_type = adapter.convert_type(agate_table, loop.index0) -%}
                  {%- set type = column_override.get(col_name, inferred_type) -%}
                    cast({{ wag_spark_literal(row[loop.index0]) }} as {{ type }})
                  {%- if not loop.last %},{% endif %}
              {%- endfor -%})
              {%- if not loop.last %},{% endif %}
          {%- endfor %}
      {% endset %}
      {% do adapter.add_query(sql, abridge_sql_log=True) %}
      {% if loop.index0 == 0 %}{% do statements.append(sql) %}{% endif %}
  {% endfor %}
  {{ return(statements[0]) }}
{% endmacro %}
