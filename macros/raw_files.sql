{#-
  Raw-file access for staging models (DESIGN.md §1, §2).

  DuckDB-only syntax (file readers, glob) lives here behind adapter.dispatch so that
  another engine (dbt-spark) can supply its own implementation.
-#}

{% macro wag_data_path(relative_path) -%}
  {#- Absolute-or-relative path of a file under var('data_dir'), with forward slashes (text, not SQL:
      use wag_data_glob in a query). -#}
  {%- set root = var('data_dir') | string -%}
  {{- return(root.rstrip('/') ~ '/' ~ relative_path.lstrip('/')) -}}
{%- endmacro %}


{% macro wag_data_glob(relative_glob) -%}
  {#- The SQL string literal of the glob `relative_glob` (one of the project's own patterns) under
      var('data_dir'): the data folder's own glob characters are escaped and every quote doubled
      (wag_glob_literal, issue 24), so a folder name is data, never SQL or a pattern. -#}
  {%- set root = (var('data_dir') | string).rstrip('/') -%}
  {%- set escaped = root | replace('[', '[[]') | replace('*', '[*]') | replace('?', '[?]') -%}
  {{- return(wag_sql_string(escaped ~ '/' ~ relative_glob.lstrip('/'))) -}}
{%- endmacro %}


{% macro wag_extra_roots(relative_glob) -%}
  {#- Folders read beside data_dir for `relative_glob`: a fitbit/ glob also matches the JSON members
      copied out of Fitbit Takeout zips (var fitbit_takeout_cache_dir, laid out as fitbit/<person>/<zip
      name>/<member>; issue 28, wag_cli/fitbit_takeout.py). [] for every other glob. -#}
  {%- if relative_glob.lstrip('/').startswith('fitbit/') -%}
    {{ return([(var('fitbit_takeout_cache_dir') | string).rstrip('/')]) }}
  {%- endif -%}
  {{ return([]) }}
{%- endmacro %}


{% macro wag_root_glob(root, relative_glob) -%}
  {#- wag_data_glob for another folder than data_dir (its glob characters escaped, quotes doubled). -#}
  {%- set escaped = root | replace('[', '[[]') | replace('*', '[*]') | replace('?', '[?]') -%}
  {{- return(wag_sql_string(escaped ~ '/' ~ relative_glob.lstrip('/'))) -}}
{%- endmacro %}


{% macro wag_data_globs(relative_glob) -%}
  {#- The reader argument for `relative_glob`: data_dir's glob literal, or, when an extra root
      (wag_extra_roots) has matching files, the list of the literals that match ([data, cache]) -
      DuckDB's readers take a list, and a listed glob without a match would be an error. -#}
  {%- set extra = wag_extra_roots(relative_glob) -%}
  {%- if not execute or not extra -%}{{ return(wag_data_glob(relative_glob)) }}{%- endif -%}
  {%- set found = [] -%}
  {%- set literals = [wag_data_glob(relative_glob)] -%}
  {%- for root in extra -%}{%- do literals.append(wag_root_glob(root, relative_glob)) -%}{%- endfor -%}
  {%- for literal in literals -%}
    {%- if run_query('select count(*) from glob(' ~ literal ~ ')').columns[0].values()[0] | int > 0 -%}
      {%- do found.append(literal) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if found | length <= 1 -%}{{ return(found[0] if found else wag_data_glob(relative_glob)) }}{%- endif -%}
  {{ return('[' ~ found | join(', ') ~ ']') }}
{%- endmacro %}


{% macro wag_source_glob(source_name, table_name) -%}
  {#- The glob of raw source `source_name.table_name` relative to var('data_dir'): its `config.meta.raw_path`
      in models/staging/<dataset>/_<dataset>__sources.yml, where each raw glob is written once.
      Calling source() here registers the dependency, so the manifest (depends_on.nodes) and `dbt docs`
      draw lineage from the raw file to every model that reads it; the relation source() returns is not
      used (issue 25: the read stays with wag_read_csv / wag_read_json, which escape the data folder's
      name, check required columns and let a model build empty when no file matches; see the header of
      _pmdata__sources.yml). Call it outside any `if`: at parse time (execute = false) dbt records the
      source() call, and the macro answers a placeholder that no reader sees (wag_files_exist is false
      at parse time). -#}
  {%- do source(source_name, table_name) -%}
  {%- if not execute -%}{{ return('<' ~ source_name ~ '.' ~ table_name ~ '>') }}{%- endif -%}
  {%- set node = graph.sources.get('source.' ~ project_name ~ '.' ~ source_name ~ '.' ~ table_name) -%}
  {%- set meta = (node.config.meta if node and node.config and node.config.meta else {}) or (node.meta if node else {}) -%}
  {%- if not meta.raw_path -%}
    {{ exceptions.raise_compiler_error("source " ~ source_name ~ "." ~ table_name ~ " has no config.meta.raw_path") }}
  {%- endif -%}
  {{ return(meta.raw_path) }}
{%- endmacro %}


{% macro wag_files_exist(relative_glob) -%}
  {#- True when at least one file matches `relative_glob` under data_dir.
      At parse time (execute = false) it answers false; models then compile to their empty branch. -#}
  {{ return(adapter.dispatch('wag_files_exist', 'wag')(relative_glob)) }}
{%- endmacro %}

{% macro duckdb__wag_files_exist(relative_glob) -%}
  {%- if not execute -%}{{ return(false) }}{%- endif -%}
  {%- set sql -%}
    select count(*) as n from glob({{ wag_data_glob(relative_glob) }})
    {%- for root in wag_extra_roots(relative_glob) %}
    union all select count(*) from glob({{ wag_root_glob(root, relative_glob) }})
    {%- endfor %}
  {%- endset -%}
  {%- set result = run_query(sql) -%}
  {{ return(result.columns[0].values() | map('int') | sum > 0) }}
{%- endmacro %}

{% macro default__wag_files_exist(relative_glob) -%}
  {{ exceptions.raise_compiler_error("wag_files_exist is not implemented for adapter " ~ adapter.type()) }}
{%- endmacro %}


{% macro wag_read_csv(relative_glob, options='', required=none) -%}
  {#- A table expression reading every CSV matching `relative_glob` under data_dir.
      `options` is extra reader options (DuckDB read_csv named parameters). The file name is
      exposed as column `filename` so models can derive the participant from the path.
      `required`: column names every matching file must have; a file that lacks one stops the
      build with an error naming the file, the missing columns and the fix (a CSV read with
      union_by_name would otherwise fill the gap with NULLs silently). -#}
  {%- if required -%}{%- do wag_require_csv_columns(relative_glob, required, options) -%}{%- endif -%}
  {{ return(adapter.dispatch('wag_read_csv', 'wag')(relative_glob, options)) }}
{%- endmacro %}

{% macro wag_require_csv_columns(relative_glob, required, options='') -%}
  {#- Raise a compiler error naming the first file under data_dir (matching the glob) whose header
      lacks any of `required` (compared case-sensitively, surrounding spaces ignored). -#}
  {{ return(adapter.dispatch('wag_require_csv_columns', 'wag')(relative_glob, required, options)) }}
{%- endmacro %}

{% macro default__wag_require_csv_columns(relative_glob, required, options='') -%}
  {%- if not execute -%}{{ return(none) }}{%- endif -%}
  {%- set files = run_query("select file from glob(" ~ wag_data_glob(relative_glob) ~ ") order by file") -%}
  {%- for file in files.columns[0].values() -%}
    {%- set opts = options | replace('union_by_name = true', 'union_by_name = false') -%}
    {%- set header_sql -%}
      select column_name from (describe select * from read_csv({{ wag_glob_literal(file) }}, header = true{% if opts %}, {{ opts }}{% endif %}))
    {%- endset -%}
    {%- set header = run_query(header_sql).columns[0].values() | map('trim') | list -%}
    {%- set missing = [] -%}
    {%- for col in required if col not in header -%}{%- do missing.append(col) -%}{%- endfor -%}
    {%- if missing -%}
      {{ exceptions.raise_compiler_error(
           file ~ ": missing column(s) " ~ missing | join(', ') ~ " (line 1 is the header; it has "
           ~ header | length ~ " columns: " ~ (header[:12] | join(', ')) ~ (', ...' if header | length > 12 else '')
           ~ "). Restore the column from the original download, or move the file out of the data folder.") }}
    {%- endif -%}
  {%- endfor -%}
{%- endmacro %}

{% macro duckdb__wag_read_csv(relative_glob, options='') -%}
  read_csv({{ wag_data_glob(relative_glob) }}, filename = true, header = true{% if options %}, {{ options }}{% endif %})
{%- endmacro %}


{% macro wag_read_json(relative_glob, options='') -%}
  {#- A table expression reading every JSON file (one top-level array each) matching
      `relative_glob` under data_dir, with a `filename` column. -#}
  {{ return(adapter.dispatch('wag_read_json', 'wag')(relative_glob, options)) }}
{%- endmacro %}

{% macro duckdb__wag_read_json(relative_glob, options='') -%}
  read_json({{ wag_data_globs(relative_glob) }}, filename = true, format = 'array'{% if options %}, {{ options }}{% endif %})
{%- endmacro %}


{% macro wag_read_json_objects(relative_glob) -%}
  {#- A table expression with one row per element of the top-level array of every JSON file matching
      `relative_glob`: columns `json` (the element, type JSON, as written) and `filename`. -#}
  {{ return(adapter.dispatch('wag_read_json_objects', 'wag')(relative_glob)) }}
{%- endmacro %}

{% macro duckdb__wag_read_json_objects(relative_glob) -%}
  read_json_objects({{ wag_data_globs(relative_glob) }}, filename = true, format = 'array')
{%- endmacro %}


{% macro wag_empty_raw() -%}
  {#- The empty relation with the staging contract's columns (used when a dataset folder is absent). -#}
  select
    cast(null as string) as dataset,
    cast(null as string) as subject_id,
    cast(null as date)    as day,
    cast(null as string) as raw_field,
    cast(null as double)  as value,
    cast(null as string) as value_text
  where false
{%- endmacro %}


{% macro wag_contract_rows(dataset, relation='long', pid_column=none) -%}
  {#- The final SELECT of a staging model whose last CTE is a long, numeric relation
      (day, raw_field, value, and subject_id — or a bare participant id in `pid_column`, which is
      then qualified as '<dataset>:<pid>'): casts to the staging contract (DESIGN.md §2) and drops
      NULL values (missing = no row). -#}
select
    cast('{{ dataset }}' as string)    as dataset,
    {%- if pid_column %}
    cast('{{ dataset }}:' || {{ pid_column }} as string) as subject_id,
    {%- else %}
    cast(subject_id as string)         as subject_id,
    {%- endif %}
    cast(day as date)                   as day,
    cast(raw_field as string)          as raw_field,
    cast(value as double)               as value,
    cast(null as string)               as value_text
from {{ relation }}
where value is not null
{%- endmacro %}


{% macro wag_check_data_dir() -%}
  {#- on-run-start hook (dbt_project.yml): a `dbt build` whose data_dir holds none of the dataset folders
      (pmdata/, lifesnaps/, globem/, ifh_affect/, and a person's own export folders apple_health/, fitbit/, oura/, with at least one file) and no wide source stops with
      an error naming the folder, instead of replacing the warehouse with empty tables (DESIGN.md §2;
      `wag build` checks the same before dbt runs). Runs with --select are not checked (they build single
      models); var allow_empty_data: true builds empty on purpose. -#}
  {%- set selected = invocation_args_dict.get('select') or invocation_args_dict.get('models') -%}
  {#- a full run would replace every table; a --select run (tests of single models) may build empty -#}
  {%- if execute and flags.WHICH in ('build', 'run', 'seed') and not selected and not var('allow_empty_data', false)
        and (var('wide_sources', []) | length) == 0 -%}
    {%- set found = [] -%}
    {%- for folder in ['pmdata', 'lifesnaps', 'globem', 'ifh_affect', 'apple_health', 'fitbit', 'oura'] -%}
      {%- if wag_files_exist(folder ~ '/**') -%}{%- do found.append(folder) -%}{%- endif -%}
    {%- endfor -%}
    {#- a file or folder name with a control character (newline, tab) would split a subject id across
        lines; `wag build` refuses it before dbt (wag_cli/safe_names.py), a plain dbt build here -#}
    {%- for folder in (found if target.type != 'spark' else []) -%}
      {#- DuckDB's glob(); on Spark the check is `wag build`'s alone (wag_cli/safe_names.py) -#}
      {%- set odd = run_query("select file from glob(" ~ wag_data_glob(folder ~ '/**') ~ ") "
                              ~ "where regexp_matches(file, '[\x00-\x1f\x7f]') order by file limit 1") -%}
      {%- if odd.rows | length > 0 -%}
        {{ exceptions.raise_compiler_error("the name of " ~ (odd.rows[0][0] | tojson) ~ " holds a control character "
            ~ "(a newline or tab), which no reader can take as part of a subject id; rename it (nothing was built)") }}
      {%- endif -%}
    {%- endfor -%}
    {%- if found | length == 0 -%}
      {{ exceptions.raise_compiler_error(
          "data folder '" ~ var('data_dir') ~ "' holds none of the dataset folders pmdata/, lifesnaps/, "
          ~ "globem/, ifh_affect/, apple_health/, fitbit/, oura/ (is WAG_DATA_DIR one level too deep or too high?); nothing was built. "
          ~ "Point WAG_DATA_DIR at the folder that contains them, or pass --vars '{allow_empty_data: true}'.") }}
    {%- endif -%}
  {%- endif -%}
  {{ return('select 1') }}
{%- endmacro %}


{% macro wag_csv_header(relative_glob, options='') -%}
  {#- The column names of the CSV files matching `relative_glob` under data_dir (the union over files,
      in order of first appearance); [] at parse time or when no file matches. Lets a model list the
      columns it unpivots (Spark's UNPIVOT needs them written out). -#}
  {%- if not execute or not wag_files_exist(relative_glob) -%}{{ return([]) }}{%- endif -%}
  {{ return(adapter.dispatch('wag_csv_header', 'wag')(relative_glob, options)) }}
{%- endmacro %}

{% macro default__wag_csv_header(relative_glob, options='') -%}
  {%- set sql -%}
    select column_name from (describe select * from read_csv({{ wag_data_glob(relative_glob) }}, header = true{% if options %}, {{ options }}{% endif %}))
  {%- endset -%}
  {{ return(run_query(sql).columns[0].values() | list) }}
{%- endmacro %}

{% macro spark__wag_csv_header(relative_glob, options='') -%}
  {%- set columns = [] -%}
  {%- for v in wag_spark_csv_views(relative_glob, options) -%}
    {%- for c in v.columns if c not in columns -%}{%- do columns.append(c) -%}{%- endfor -%}
  {%- endfor -%}
  {{ return(columns) }}
{%- endmacro %}
