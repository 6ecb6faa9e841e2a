{#-
  Raw-file access on Spark (issue 12; DESIGN.md §1): the spark__ implementations of the readers of
  macros/raw_files.sql. Spark SQL has no table function with reader options, so each reader creates
  a temporary view (`create or replace temporary view … using csv|json options (…)`) in the dbt-spark
  session when the model compiles, and the model selects from it. Paths are Hadoop globs under the
  data folder; a relative WAG_DATA_DIR is taken from the directory dbt runs in ($PWD).

  Differences from DuckDB, by design of the engine (documented in README "Running on Spark"):
  * `filename` is the absolute path of the file (Spark's input_file_name() without 'file:'), where
    DuckDB gives the path as globbed (relative when WAG_DATA_DIR is relative).
  * CSV: every field is read as text (Spark's default without inferSchema = DuckDB's all_varchar),
    files are read one view each and unioned by column name (DuckDB's union_by_name); an empty
    unquoted field is NULL in both.
  * JSON: a file holding one top-level array is read with multiLine = true (one row per element);
    the DuckDB `columns = {name: 'TYPE', …}` option names the fields read, all as Spark STRING —
    a nested object or array arrives as its JSON text, which is what DuckDB's JSON type holds.
-#}

{% macro wag_spark_data_root() -%}
  {#- The data folder as an absolute, normalised path (no trailing slash, no '.' or '..' segments). -#}
  {%- set root = var('data_dir') | string -%}
  {%- if not root.startswith('/') -%}
    {%- set root = env_var('PWD', '.') ~ '/' ~ root -%}
  {%- endif -%}
  {%- set parts = [] -%}
  {%- for seg in root.split('/') -%}
    {%- if seg == '..' -%}{%- if parts -%}{%- do parts.pop() -%}{%- endif -%}
    {%- elif seg not in ('', '.') -%}{%- do parts.append(seg) -%}
    {%- endif -%}
  {%- endfor -%}
  {{- return('/' ~ parts | join('/')) -}}
{%- endmacro %}


{% macro wag_spark_glob_regex(relative_glob) -%}
  {#- A Java regex matching the absolute paths that `relative_glob` (under the data folder) matches:
      '**' any depth, '*' and '?' within one path segment, everything else literal. -#}
  {%- set pattern = wag_spark_data_root() ~ '/' ~ relative_glob.lstrip('/') -%}
  {%- set out = [] -%}
  {%- set ns = namespace(i=0) -%}
  {%- for k in range(pattern | length) -%}
    {%- if k >= ns.i -%}
      {%- set c = pattern[k] -%}
      {%- if pattern[k:k + 2] == '**' -%}{%- do out.append('.*') -%}{%- set ns.i = k + 2 -%}
      {%- elif c == '*' -%}{%- do out.append('[^/]*') -%}{%- set ns.i = k + 1 -%}
      {%- elif c == '?' -%}{%- do out.append('[^/]') -%}{%- set ns.i = k + 1 -%}
      {%- elif c in '.^$+()[]{}|\\' -%}{%- do out.append('\\' ~ c) -%}{%- set ns.i = k + 1 -%}
      {%- else -%}{%- do out.append(c) -%}{%- set ns.i = k + 1 -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {{- return('^' ~ out | join('') ~ '$') -}}
{%- endmacro %}


{% macro wag_spark_option_path(path) -%}
  {#- A path as the string literal of a Spark reader OPTIONS clause (issue 24). OPTIONS take plain
      literals only (no chr() concatenation), so a path holding a quote or a backslash stops the build
      with a message naming it, instead of being pasted into the statement. -#}
  {%- set text = path | string -%}
  {%- if "'" in text or "\\" in text -%}
    {{ exceptions.raise_compiler_error("cannot read " ~ text ~ " on Spark: a quote or backslash in a file or folder "
                                       ~ "name cannot be passed to Spark's file readers; rename it, or build with the duckdb target") }}
  {%- endif -%}
  {{- return("'" ~ text ~ "'") -}}
{%- endmacro %}


{% macro wag_spark_files(relative_glob) -%}
  {#- The sorted absolute paths of the files under the data folder matching `relative_glob`
      (Spark's binaryFile source lists the folder; file contents are not read). -#}
  {%- if not execute -%}{{ return([]) }}{%- endif -%}
  {%- do run_query("create or replace temporary view wag_data_files using binaryFile options (path "
                   ~ wag_spark_option_path(wag_spark_data_root()) ~ ", recursiveFileLookup 'true')") -%}
  {%- set result = run_query("select distinct regexp_replace(path, '^file:/*', '/') as file from wag_data_files"
                             ~ " where regexp_replace(path, '^file:/*', '/') rlike '" ~ wag_spark_glob_regex(relative_glob)
                             ~ "' order by file") -%}
  {{ return(result.columns[0].values() | list) }}
{%- endmacro %}


{% macro spark__wag_files_exist(relative_glob) -%}
  {%- if not execute -%}{{ return(false) }}{%- endif -%}
  {{ return(wag_spark_files(relative_glob) | length > 0) }}
{%- endmacro %}


{% macro wag_spark_csv_option(options, name, default) -%}
  {#- The value of DuckDB read_csv option `name` in the options string (e.g. delim = ','), else default. -#}
  {%- set m = modules.re.search(name ~ "\\s*=\\s*'((?:[^']|'')*)'", options or '') -%}
  {{ return(m.group(1).replace("''", "'") if m else default) }}
{%- endmacro %}


{% macro wag_spark_csv_views(relative_glob, options='') -%}
  {#- One temporary view per CSV file matching `relative_glob` (header = true, every field text):
      a list of {file, view, columns}. -#}
  {%- set delim = wag_spark_csv_option(options, 'delim', ',') -%}
  {%- set quote = wag_spark_csv_option(options, 'quote', '"') -%}
  {%- set escape = wag_spark_csv_option(options, 'escape', quote) -%}
  {%- set views = [] -%}
  {%- for file in wag_spark_files(relative_glob) -%}
    {%- set view = 'wag_csv_' ~ local_md5(file ~ '|' ~ delim ~ quote ~ escape) -%}
    {%- do run_query("create or replace temporary view " ~ view ~ " using csv options (path " ~ wag_spark_option_path(file)
                     ~ ", header 'true', sep '" ~ delim ~ "', quote '" ~ quote ~ "', escape '" ~ escape
                     ~ "', mode 'PERMISSIVE')") -%}
    {%- set columns = run_query('describe ' ~ view).columns[0].values() | list -%}
    {%- do views.append({'file': file, 'view': view, 'columns': columns}) -%}
  {%- endfor -%}
  {{ return(views) }}
{%- endmacro %}


{% macro spark__wag_read_csv(relative_glob, options='') -%}
  {%- if not execute -%}
    {{- return("(select cast(null as string) as filename where false)") -}}
  {%- endif -%}
  {%- set views = wag_spark_csv_views(relative_glob, options) -%}
  {%- set all_columns = [] -%}
  {%- for v in views -%}{%- for c in v.columns if c not in all_columns -%}{%- do all_columns.append(c) -%}{%- endfor -%}{%- endfor -%}
  {%- set parts = [] -%}
  {%- for v in views -%}
    {%- set cols = [] -%}
    {%- for c in all_columns -%}
      {%- do cols.append(wag_q(c) if c in v.columns else 'cast(null as string) as ' ~ wag_q(c)) -%}
    {%- endfor -%}
    {%- do parts.append('select ' ~ (cols + [wag_sql_string(v.file) ~ " as filename"]) | join(', ') ~ ' from ' ~ v.view) -%}
  {%- endfor -%}
  {{- return('(' ~ parts | join(' union all ') ~ ')') -}}
{%- endmacro %}


{% macro wag_spark_json_columns(options) -%}
  {#- The field names of a DuckDB read_json `columns = {name: 'TYPE', …}` option, in order. -#}
  {{ return(modules.re.findall("([A-Za-z_][A-Za-z0-9_]*)\\s*:\\s*'[A-Za-z]+'", options or '')) }}
{%- endmacro %}


{% macro spark__wag_read_json(relative_glob, options='') -%}
  {%- set columns = wag_spark_json_columns(options) -%}
  {%- if not columns -%}
    {{ exceptions.raise_compiler_error("wag_read_json on Spark needs the columns = {…} option naming the fields, got: " ~ options) }}
  {%- endif -%}
  {%- if not execute -%}
    {{- return("(select cast(null as string) as filename where false)") -}}
  {%- endif -%}
  {%- set view = 'wag_json_' ~ local_md5(relative_glob ~ '|' ~ columns | join(',')) -%}
  {%- set ddl = [] -%}
  {%- for c in columns -%}{%- do ddl.append(wag_q(c) ~ ' string') -%}{%- endfor -%}
  {%- do run_query("create or replace temporary view " ~ view ~ " (" ~ ddl | join(', ') ~ ") using json options (path "
                   ~ wag_spark_option_path(wag_spark_data_root() ~ '/' ~ relative_glob.lstrip('/')) ~ ", multiLine 'true', mode 'PERMISSIVE')") -%}
  {{- return("(select *, regexp_replace(input_file_name(), '^file:/*', '/') as filename from " ~ view ~ ")") -}}
{%- endmacro %}


{% macro spark__wag_read_json_objects(relative_glob) -%}
  {#- One row per element of each file's top-level array: `json` (the element as JSON text) and `filename`. -#}
  {%- if not execute -%}
    {{- return("(select cast(null as string) as json, cast(null as string) as filename where false)") -}}
  {%- endif -%}
  {%- set view = 'wag_jsontext_' ~ local_md5(relative_glob) -%}
  {%- do run_query("create or replace temporary view " ~ view ~ " using text options (path "
                   ~ wag_spark_option_path(wag_spark_data_root() ~ '/' ~ relative_glob.lstrip('/')) ~ ", wholetext 'true')") -%}
  {{- return("(select element as json, filename from (select explode(from_json(value, 'array<string>')) as element, "
             ~ "regexp_replace(input_file_name(), '^file:/*', '/') as filename from " ~ view ~ "))") -}}
{%- endmacro %}


{% macro spark__wag_require_csv_columns(relative_glob, required, options='') -%}
  {%- if not execute -%}{{ return(none) }}{%- endif -%}
  {%- for v in wag_spark_csv_views(relative_glob, options) -%}
    {%- set header = v.columns | map('trim') | list -%}
    {%- set missing = [] -%}
    {%- for col in required if col not in header -%}{%- do missing.append(col) -%}{%- endfor -%}
    {%- if missing -%}
      {{ exceptions.raise_compiler_error(
           v.file ~ ": missing column(s) " ~ missing | join(', ') ~ " (line 1 is the header; it has "
           ~ header | length ~ " columns: " ~ (header[:12] | join(', ')) ~ (', ...' if header | length > 12 else '')
           ~ "). Restore the column from the original download, or move the file out of the data folder.") }}
    {%- endif -%}
  {%- endfor -%}
{%- endmacro %}
