{#-
  Engine-specific SQL expressions (issue 12): each macro is the one place where DuckDB and Spark
  spell the same operation differently; models call the macro and stay plain SQL otherwise.
  default__ = DuckDB (the reference build), spark__ = Spark SQL 4 (dbt-spark, ANSI mode off).
-#}

{% macro wag_path_slashes(expr) -%}
  {#- A file path with forward slashes (DuckDB's filename keeps Windows backslashes as written). -#}
  {{ return(adapter.dispatch('wag_path_slashes', 'wag')(expr)) }}
{%- endmacro %}
{% macro default__wag_path_slashes(expr) -%}replace({{ expr }}, '\', '/'){%- endmacro %}
{#- Spark's readers return Hadoop paths, which always use '/' -#}
{% macro spark__wag_path_slashes(expr) -%}{{ expr }}{%- endmacro %}


{% macro wag_json_text(json_expr, path) -%}
  {#- The text of the JSON value at `path` ('$.a.b') of a JSON text; NULL when absent. -#}
  {{ return(adapter.dispatch('wag_json_text', 'wag')(json_expr, path)) }}
{%- endmacro %}
{% macro default__wag_json_text(json_expr, path) -%}json_extract_string({{ json_expr }}, '{{ path }}'){%- endmacro %}
{% macro spark__wag_json_text(json_expr, path) -%}get_json_object({{ json_expr }}, '{{ path }}'){%- endmacro %}


{% macro wag_json_struct_rows(json_expr, path, fields) -%}
  {#- A set-returning select-list expression: one row per element of the JSON array at `path`, as a
      struct with `fields` ({name: 'VARCHAR' | 'DOUBLE'}); no row when the array is absent. -#}
  {{ return(adapter.dispatch('wag_json_struct_rows', 'wag')(json_expr, path, fields)) }}
{%- endmacro %}
{% macro default__wag_json_struct_rows(json_expr, path, fields) -%}
  unnest(from_json(json_extract({{ json_expr }}, '{{ path }}'),
                   '[{ {%- for name, type in fields.items() %}"{{ name }}": "{{ type }}"{{ ", " if not loop.last }}{% endfor -%} }]'))
{%- endmacro %}
{% macro spark__wag_json_struct_rows(json_expr, path, fields) -%}
  explode(from_json(get_json_object({{ json_expr }}, '{{ path }}'),
                    'array<struct<{%- for name, type in fields.items() %}{{ name }}: {{ 'string' if type == 'VARCHAR' else type | lower }}{{ ", " if not loop.last }}{% endfor -%}>>'))
{%- endmacro %}


{% macro wag_json_values_sum(json_expr, path, item_sql) -%}
  {#- The sum over the values of the JSON object at `path` (e.g. '$.valuesInZones'), each value's text
      turned into a number by `item_sql` (SQL with the placeholder ITEM); NULL when there is none. -#}
  {{ return(adapter.dispatch('wag_json_values_sum', 'wag')(json_expr, path, item_sql)) }}
{%- endmacro %}
{% macro default__wag_json_values_sum(json_expr, path, item_sql) -%}
  list_sum(list_transform(
      json_extract({{ json_expr }}, '{{ path }}.*'),
      lambda x: {{ item_sql | replace('ITEM', "json_extract_string(x, '$')") }}
  ))
{%- endmacro %}
{% macro spark__wag_json_values_sum(json_expr, path, item_sql) -%}
  aggregate(
      map_values(from_json(get_json_object({{ json_expr }}, '{{ path }}'), 'map<string, string>')),
      cast(null as double),
      (acc, x) -> case when {{ item_sql | replace('ITEM', 'x') }} is null then acc
                       else coalesce(acc, 0) + {{ item_sql | replace('ITEM', 'x') }} end)
{%- endmacro %}


{% macro wag_try_strptime(expr, formats) -%}
  {#- A TIMESTAMP from text in the first of `formats` (strftime spelling: %Y %m %d %H %M %S, literal
      '-', '/', '.', ':', ' ', 'T') that reads the whole text; NULL when none does. -#}
  {{ return(adapter.dispatch('wag_try_strptime', 'wag')(expr, formats)) }}
{%- endmacro %}
{% macro default__wag_try_strptime(expr, formats) -%}
  try_strptime({{ expr }}, [{% for f in formats %}'{{ f }}'{{ ", " if not loop.last }}{% endfor %}])
{%- endmacro %}
{% macro spark__wag_try_strptime(expr, formats) -%}
  {#- Spark patterns: one letter per field (one or two digits read); a 'T' separator is read by
      matching the text with 'T' turned into a space against the format with 'T' turned into a space. -#}
  {%- set spark_formats = [] -%}
  {%- for f in formats -%}
    {%- set p = f | replace('%Y', 'yyyy') | replace('%y', 'yy') | replace('%m', 'M') | replace('%d', 'd') | replace('%H', 'H')
                  | replace('%M', 'm') | replace('%S', 's') | replace('T', ' ') -%}
    {%- if p not in spark_formats -%}{%- do spark_formats.append(p) -%}{%- endif -%}
  {%- endfor -%}
  coalesce({% for p in spark_formats %}try_to_timestamp(replace({{ expr }}, 'T', ' '), '{{ p }}'){{ ", " if not loop.last }}{% endfor %})
{%- endmacro %}


{% macro wag_utc_text_to_timestamp(expr) -%}
  {#- An instant from ISO text with a zone ('2019-11-16T23:50:57Z', '…+01:00'); NULL otherwise. -#}
  {{ return(adapter.dispatch('wag_utc_text_to_timestamp', 'wag')(expr)) }}
{%- endmacro %}
{% macro default__wag_utc_text_to_timestamp(expr) -%}try_cast({{ expr }} as timestamptz){%- endmacro %}
{#- Spark's TIMESTAMP is an instant (session time zone UTC in profiles.yml); text without a zone is
    read in that zone, so a zone is required here as DuckDB's TIMESTAMPTZ cast requires one too -#}
{% macro spark__wag_utc_text_to_timestamp(expr) -%}
  case when {{ expr }} rlike '(Z|[+-][0-9]{2}(:?[0-9]{2})?)$' then try_cast({{ expr }} as timestamp) end
{%- endmacro %}


{% macro wag_local_day(instant_expr, tz) -%}
  {#- The calendar DATE of an instant in the time zone `tz` (e.g. 'Europe/Oslo'). -#}
  {{ return(adapter.dispatch('wag_local_day', 'wag')(instant_expr, tz)) }}
{%- endmacro %}
{% macro default__wag_local_day(instant_expr, tz) -%}cast(timezone('{{ tz }}', {{ instant_expr }}) as date){%- endmacro %}
{% macro spark__wag_local_day(instant_expr, tz) -%}to_date(from_utc_timestamp({{ instant_expr }}, '{{ tz }}')){%- endmacro %}


{% macro wag_seconds_between(start_ts, end_ts) -%}
  {#- Whole seconds from start_ts to end_ts (wall clock of naive timestamps). -#}
  {{ return(adapter.dispatch('wag_seconds_between', 'wag')(start_ts, end_ts)) }}
{%- endmacro %}
{% macro default__wag_seconds_between(start_ts, end_ts) -%}date_diff('second', {{ start_ts }}, {{ end_ts }}){%- endmacro %}
{% macro spark__wag_seconds_between(start_ts, end_ts) -%}timestampdiff(SECOND, {{ start_ts }}, {{ end_ts }}){%- endmacro %}


{% macro wag_days_between_count(start_day, end_day) -%}
  {#- Calendar days from start_day to end_day (end - start). -#}
  {{ return(adapter.dispatch('wag_days_between_count', 'wag')(start_day, end_day)) }}
{%- endmacro %}
{% macro default__wag_days_between_count(start_day, end_day) -%}date_diff('day', {{ start_day }}, {{ end_day }}){%- endmacro %}
{% macro spark__wag_days_between_count(start_day, end_day) -%}datediff({{ end_day }}, {{ start_day }}){%- endmacro %}


{% macro wag_add_seconds(ts_expr, seconds_expr) -%}
  {{ return(adapter.dispatch('wag_add_seconds', 'wag')(ts_expr, seconds_expr)) }}
{%- endmacro %}
{% macro default__wag_add_seconds(ts_expr, seconds_expr) -%}({{ ts_expr }} + to_seconds({{ seconds_expr }})){%- endmacro %}
{% macro spark__wag_add_seconds(ts_expr, seconds_expr) -%}timestampadd(SECOND, {{ seconds_expr }}, {{ ts_expr }}){%- endmacro %}


{% macro wag_range_rows(start, stop, step) -%}
  {#- A set-returning select-list expression: start, start + step, … below stop (empty when stop <= start). -#}
  {{ return(adapter.dispatch('wag_range_rows', 'wag')(start, stop, step)) }}
{%- endmacro %}
{% macro default__wag_range_rows(start, stop, step) -%}unnest(range({{ start }}, {{ stop }}, {{ step }})){%- endmacro %}
{% macro spark__wag_range_rows(start, stop, step) -%}
  explode(filter(sequence({{ start }}, greatest({{ start }}, {{ stop }}), {{ step }}), k -> k < {{ stop }}))
{%- endmacro %}


{% macro wag_quantile_cont(expr, q) -%}
  {#- The q-quantile of expr with linear interpolation between order statistics (an aggregate). -#}
  {{ return(adapter.dispatch('wag_quantile_cont', 'wag')(expr, q)) }}
{%- endmacro %}
{% macro default__wag_quantile_cont(expr, q) -%}quantile_cont({{ expr }}, {{ q }}){%- endmacro %}
{% macro spark__wag_quantile_cont(expr, q) -%}percentile({{ expr }}, cast({{ q }} as double)){%- endmacro %}


{% macro wag_quantile_cont_list(expr, qs) -%}
  {#- The list of the qs-quantiles of expr (in the order of qs), linear interpolation as wag_quantile_cont,
      from one aggregate state: the values are collected once for all of qs instead of once per
      quantile. An aggregate, also usable as a window function. Take an element with wag_list_item. -#}
  {{ return(adapter.dispatch('wag_quantile_cont_list', 'wag')(expr, qs)) }}
{%- endmacro %}
{% macro default__wag_quantile_cont_list(expr, qs) -%}
  quantile_cont({{ expr }}, [{% for q in qs %}{{ q }}{{ ", " if not loop.last }}{% endfor %}])
{%- endmacro %}
{% macro spark__wag_quantile_cont_list(expr, qs) -%}
  percentile({{ expr }}, array({% for q in qs %}cast({{ q }} as double){{ ", " if not loop.last }}{% endfor %}))
{%- endmacro %}


{% macro wag_not_materialized() -%}
  {#- Written between `name as` and the CTE's query: DuckDB materialises a CTE that is read more than
      once, which for a CTE over a stored table of 35 M rows (int_edge_paired_values at 500 subjects)
      copies it in memory (+1.6 GB, correlations_individual 15.9 -> 11.2 s without it, issue 10);
      `not materialized` makes each reference scan the table. Spark has no such keyword (empty). -#}
  {{ return(adapter.dispatch('wag_not_materialized', 'wag')()) }}
{%- endmacro %}
{% macro default__wag_not_materialized() -%}not materialized{%- endmacro %}
{% macro spark__wag_not_materialized() -%}{%- endmacro %}


{% macro wag_list_item(list_expr, i) -%}
  {#- Element i (1-based) of a list (DuckDB) / array (Spark, whose [] is 0-based). -#}
  {{ return(adapter.dispatch('wag_list_item', 'wag')(list_expr, i)) }}
{%- endmacro %}
{% macro default__wag_list_item(list_expr, i) -%}({{ list_expr }})[{{ i }}]{%- endmacro %}
{% macro spark__wag_list_item(list_expr, i) -%}element_at({{ list_expr }}, {{ i }}){%- endmacro %}


{% macro wag_regexp_matches(expr, pattern) -%}
  {#- True when `pattern` matches somewhere in expr. -#}
  {{ return(adapter.dispatch('wag_regexp_matches', 'wag')(expr, pattern)) }}
{%- endmacro %}
{% macro default__wag_regexp_matches(expr, pattern) -%}regexp_matches({{ expr }}, '{{ pattern }}'){%- endmacro %}
{% macro spark__wag_regexp_matches(expr, pattern) -%}({{ expr }} rlike '{{ pattern }}'){%- endmacro %}


{% macro wag_regexp_replace_all(expr, pattern, replacement) -%}
  {#- Every match of `pattern` in expr replaced (DuckDB's 'g' flag; Spark always replaces all). -#}
  {{ return(adapter.dispatch('wag_regexp_replace_all', 'wag')(expr, pattern, replacement)) }}
{%- endmacro %}
{% macro default__wag_regexp_replace_all(expr, pattern, replacement) -%}regexp_replace({{ expr }}, '{{ pattern }}', '{{ replacement }}', 'g'){%- endmacro %}
{% macro spark__wag_regexp_replace_all(expr, pattern, replacement) -%}regexp_replace({{ expr }}, '{{ pattern }}', '{{ replacement }}'){%- endmacro %}


{% macro wag_regexp_extract_all_joined(expr, pattern, group, separator) -%}
  {#- Capture group `group` of every match of `pattern` in expr, joined by `separator` ('' when none). -#}
  {{ return(adapter.dispatch('wag_regexp_extract_all_joined', 'wag')(expr, pattern, group, separator)) }}
{%- endmacro %}
{% macro default__wag_regexp_extract_all_joined(expr, pattern, group, separator) -%}
  array_to_string(regexp_extract_all({{ expr }}, '{{ pattern }}', {{ group }}), '{{ separator }}')
{%- endmacro %}
{% macro spark__wag_regexp_extract_all_joined(expr, pattern, group, separator) -%}
  array_join(regexp_extract_all({{ expr }}, '{{ pattern }}', {{ group }}), '{{ separator }}')
{%- endmacro %}


{% macro wag_list_position(items, expr) -%}
  {#- The 1-based position of expr in the literal list `items` (Jinja list of strings); NULL when absent. -#}
  {{ return(adapter.dispatch('wag_list_position', 'wag')(items, expr)) }}
{%- endmacro %}
{% macro default__wag_list_position(items, expr) -%}
  list_position([{% for i in items %}'{{ i }}'{{ ", " if not loop.last }}{% endfor %}], {{ expr }})
{%- endmacro %}
{% macro spark__wag_list_position(items, expr) -%}
  nullif(array_position(array({% for i in items %}'{{ i }}'{{ ", " if not loop.last }}{% endfor %}), {{ expr }}), 0)
{%- endmacro %}


{% macro wag_unpivot(relation, columns, name_column, value_column, include_nulls=false) -%}
  {#- A query turning `columns` of `relation` into rows (name_column = the column name as written,
      value_column = its value; the other columns are kept). NULL cells give no row unless
      include_nulls. The columns must share one type. -#}
  {{ return(adapter.dispatch('wag_unpivot', 'wag')(relation, columns, name_column, value_column, include_nulls)) }}
{%- endmacro %}
{% macro default__wag_unpivot(relation, columns, name_column, value_column, include_nulls=false) -%}
  unpivot {% if include_nulls %}include nulls {% endif %}{{ relation }}
  on {% for c in columns %}{{ wag_q(c) }}{{ ", " if not loop.last }}{% endfor %}
  into name {{ name_column }} value {{ value_column }}
{%- endmacro %}
{% macro spark__wag_unpivot(relation, columns, name_column, value_column, include_nulls=false) -%}
  select * from {{ relation }}
  unpivot {% if include_nulls %}include nulls {% endif %}({{ value_column }} for {{ name_column }} in (
      {%- for c in columns %}{{ wag_q(c) }}{{ ", " if not loop.last }}{% endfor -%}))
{%- endmacro %}


{% macro wag_q(name) -%}
  {#- A quoted identifier: "name" on DuckDB, `name` on Spark (whose double quotes are string literals).
      A quote character inside the name is doubled (issue 24: CSV headers come from files, and dbt's
      adapter.quote pastes the name between quotes as it is). -#}
  {{- return(adapter.dispatch('wag_q', 'wag')(name)) -}}
{%- endmacro %}
{% macro default__wag_q(name) -%}"{{ (name | string) | replace('"', '""') }}"{%- endmacro %}
{% macro spark__wag_q(name) -%}`{{ (name | string) | replace('`', '``') }}`{%- endmacro %}


{% macro wag_string_agg(expr, separator, order_by, distinct=false) -%}
  {#- The texts of expr in a group joined by `separator` (a SQL string literal), ordered by `order_by`. -#}
  {{ return(adapter.dispatch('wag_string_agg', 'wag')(expr, separator, order_by, distinct)) }}
{%- endmacro %}
{% macro default__wag_string_agg(expr, separator, order_by, distinct=false) -%}
  {%- if distinct and order_by | trim == expr | trim -%}
    {#- the sorted set of texts: list + list_distinct + list_sort is ~2x faster in DuckDB than an ordered
        string_agg(distinct ...) (measured on 4.3 M groups, bench/RESULTS.md "Scale"); NULL when no text -#}
    case when count({{ expr }}) > 0 then array_to_string(list_sort(list_distinct(list({{ expr }}))), {{ separator }}) end
  {%- else -%}
    string_agg({{ 'distinct ' if distinct }}{{ expr }}, {{ separator }} order by {{ order_by }})
  {%- endif -%}
{%- endmacro %}
{% macro spark__wag_string_agg(expr, separator, order_by, distinct=false) -%}
  {#- Spark 4's listagg(distinct …) within group fails in the analyzer (ClassCastException), so the
      texts are collected and sorted: distinct = the sorted set (order_by must then be expr itself);
      otherwise a list of (order keys…, text) structs sorted field by field. NULL when no text. -#}
  {%- if distinct -%}
    {%- if order_by | trim != expr | trim -%}
      {{ exceptions.raise_compiler_error("wag_string_agg on Spark: distinct needs order_by = expr, got " ~ order_by) }}
    {%- endif -%}
    case when count({{ expr }}) > 0 then array_join(array_sort(collect_set({{ expr }})), {{ separator }}) end
  {%- else -%}
    {%- set keys = [] -%}
    {%- set ns = namespace(depth=0, current='', in_str=false) -%}
    {%- for ch in order_by -%}
      {%- if ch == "'" -%}{%- set ns.in_str = not ns.in_str -%}{%- endif -%}
      {%- if not ns.in_str and ch == '(' -%}{%- set ns.depth = ns.depth + 1 -%}{%- endif -%}
      {%- if not ns.in_str and ch == ')' -%}{%- set ns.depth = ns.depth - 1 -%}{%- endif -%}
      {%- if ch == ',' and ns.depth == 0 and not ns.in_str -%}{%- do keys.append(ns.current | trim) -%}{%- set ns.current = '' -%}
      {%- else -%}{%- set ns.current = ns.current ~ ch -%}{%- endif -%}
    {%- endfor -%}
    {%- do keys.append(ns.current | trim) -%}
    case when count({{ expr }}) > 0 then array_join(transform(array_sort(collect_list(
        case when ({{ expr }}) is not null then named_struct(
            {%- for k in keys %}'k{{ loop.index }}', {{ k }}, {% endfor %}'v', {{ expr }}) end)),
        e -> e.v), {{ separator }}) end
  {%- endif -%}
{%- endmacro %}


{% macro wag_q_list(names) -%}
  {#- Quoted identifiers joined by ', '. -#}
  {%- set out = [] -%}{%- for n in names -%}{%- do out.append(wag_q(n)) -%}{%- endfor -%}
  {{- return(out | join(', ')) -}}
{%- endmacro %}


{% macro wag_struct(fields) -%}
  {#- A struct value from a list of (name, SQL) pairs. -#}
  {{ return(adapter.dispatch('wag_struct', 'wag')(fields)) }}
{%- endmacro %}
{% macro default__wag_struct(fields) -%}
  { {%- for name, sql in fields %}'{{ name }}': {{ sql }}{{ ", " if not loop.last }}{% endfor -%} }
{%- endmacro %}
{% macro spark__wag_struct(fields) -%}
  named_struct({%- for name, sql in fields %}'{{ name }}', {{ sql }}{{ ", " if not loop.last }}{% endfor -%})
{%- endmacro %}


{% macro wag_nonnull_rows_open() -%}
  {#- wag_nonnull_rows_open() a, b, … wag_nonnull_rows_close(): a set-returning select-list expression with
      one row per non-NULL element of the list a, b, … (the quarantine's list of failed checks). -#}
  {{ return(adapter.dispatch('wag_nonnull_rows_open', 'wag')()) }}
{%- endmacro %}
{% macro default__wag_nonnull_rows_open() -%}unnest(list_filter([{%- endmacro %}
{% macro spark__wag_nonnull_rows_open() -%}explode(filter(array({%- endmacro %}
{% macro wag_nonnull_rows_close() -%}
  {{ return(adapter.dispatch('wag_nonnull_rows_close', 'wag')()) }}
{%- endmacro %}
{% macro default__wag_nonnull_rows_close() -%}], lambda r: r is not null)){%- endmacro %}
{% macro spark__wag_nonnull_rows_close() -%}), r -> r is not null)){%- endmacro %}


{% macro wag_file_row_number() -%}
  {#- The position of a record in its file (1-based), over a reader's rows with column `filename`.
      DuckDB's readers keep file order; on Spark each file is one partition of its reader (files below
      spark.sql.files.maxPartitionBytes, 128 MB), so monotonically_increasing_id() follows file order. -#}
  {{ return(adapter.dispatch('wag_file_row_number', 'wag')()) }}
{%- endmacro %}
{% macro default__wag_file_row_number() -%}row_number() over (partition by filename){%- endmacro %}
{% macro spark__wag_file_row_number() -%}row_number() over (partition by filename order by monotonically_increasing_id()){%- endmacro %}


{% macro wag_json_value(json_expr, path) -%}
  {#- The JSON value (object, array or scalar, as JSON) at `path`. -#}
  {{ return(adapter.dispatch('wag_json_value', 'wag')(json_expr, path)) }}
{%- endmacro %}
{% macro default__wag_json_value(json_expr, path) -%}json_extract({{ json_expr }}, '{{ path }}'){%- endmacro %}
{% macro spark__wag_json_value(json_expr, path) -%}get_json_object({{ json_expr }}, '{{ path }}'){%- endmacro %}


{% macro wag_json_values_any(json_object_expr, predicate_sql) -%}
  {#- True when `predicate_sql` (SQL with the placeholder ITEM = a value's text) holds for a value of the
      JSON object; false for an object without such a value. -#}
  {{ return(adapter.dispatch('wag_json_values_any', 'wag')(json_object_expr, predicate_sql)) }}
{%- endmacro %}
{% macro default__wag_json_values_any(json_object_expr, predicate_sql) -%}
  len(list_filter(json_extract({{ json_object_expr }}, '$.*'),
                  lambda x: {{ predicate_sql | replace('ITEM', "json_extract_string(x, '$')") }})) > 0
{%- endmacro %}
{% macro spark__wag_json_values_any(json_object_expr, predicate_sql) -%}
  coalesce(exists(map_values(from_json({{ json_object_expr }}, 'map<string, string>')),
                  x -> {{ predicate_sql | replace('ITEM', 'x') }}), false)
{%- endmacro %}


{% macro wag_sql_string(text) -%}
  {#- The one way a text that comes from outside the project (a path, a file or folder name, a column
      header, a dataset name) becomes SQL (issue 24): a string literal, never pasted between quotes.
      DuckDB: '…' with every ' doubled (backslashes are literal); Spark: wag_spark_literal (every ' and \
      spelled chr(39) / chr(92)). -#}
  {{- return(adapter.dispatch('wag_sql_string', 'wag')(text)) -}}
{%- endmacro %}
{% macro default__wag_sql_string(text) -%}'{{ (text | string) | replace("'", "''") }}'{%- endmacro %}
{% macro spark__wag_sql_string(text) -%}{{ wag_spark_literal(text | string) }}{%- endmacro %}


{% macro wag_glob_literal(text) -%}
  {#- A file system path as a DuckDB file-reader argument that matches exactly that path: the glob
      characters [ * ? of a name are escaped as [[] [*] [?] (DuckDB reads a reader's path as a glob
      pattern), then quoted with wag_sql_string. -#}
  {{- return(wag_sql_string((text | string) | replace('[', '[[]') | replace('*', '[*]') | replace('?', '[?]'))) -}}
{%- endmacro %}


{% macro wag_file_root() -%}
  {#- The data folder as the readers' `filename` begins (DuckDB: as given; Spark: absolute). -#}
  {{ return(adapter.dispatch('wag_file_root', 'wag')()) }}
{%- endmacro %}
{% macro default__wag_file_root() -%}{{ (var('data_dir') | string).rstrip('/') }}{%- endmacro %}
{% macro spark__wag_file_root() -%}{{ wag_spark_data_root() }}{%- endmacro %}


{% macro wag_is_infinite(expr) -%}
  {#- True for +/-infinity (Spark has isnan but no isinf). -#}
  {{ return(adapter.dispatch('wag_is_infinite', 'wag')(expr)) }}
{%- endmacro %}
{% macro default__wag_is_infinite(expr) -%}isinf({{ expr }}){%- endmacro %}
{% macro spark__wag_is_infinite(expr) -%}({{ expr }} in (double('inf'), double('-inf'))){%- endmacro %}
