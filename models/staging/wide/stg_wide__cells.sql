{#-
  Every cell of the wide daily CSVs listed in var('wide_sources') (DESIGN.md §2), one row per
  (source, row, metric column), empty cells included. Ephemeral: shared by stg_wide__daily_metrics
  and stg_wide__unmapped_columns, not a table of its own.

  var('wide_sources'): a list of {"dataset": "<name>", "path": "<csv path>"} (absolute, or relative to
  the directory dbt runs in). Each CSV has a header row with `participant_id`, `date` (YYYY-MM-DD)
  and one column per metric; wag_processed/README.md describes the two published ones. Every field is
  read as text (all_varchar) so that DuckDB's type sniffing never guesses dates or numbers. The CSV
  dialect is the entry's `delim` (default ','), `quote` (default '"', also the escape) and `decimal`
  ('.' or ','; default '.'): `wag build` fills them from wag_cli/dialect.py (declared or sniffed,
  issue 9 item 6), a hand-written var may declare them. With decimal ',' a cell like '35,5' is
  read as '35.5'. A UTF-8 byte-order mark and quoted header names are read as usual.

  Columns: dataset, source_row (1-based data-row number within the file), participant_id,
  date_text, column_name (header exactly as written), raw_value (text, NULL for an empty field).
-#}
{{ config(materialized='ephemeral') }}
{%- set sources = var('wide_sources', []) -%}
{%- if sources and target.type == 'spark' %}
{{ exceptions.raise_compiler_error("wide_sources are read with DuckDB's CSV sniffer and are not supported on Spark (issue 12); "
                                   "build them with the duckdb target") }}
{%- endif %}
{%- if sources | length == 0 %}
select
    cast(null as string) as dataset,
    cast(null as bigint)  as source_row,
    cast(null as string) as participant_id,
    cast(null as string) as date_text,
    cast(null as string) as column_name,
    cast(null as string) as raw_value
where false
{%- else %}
{%- for s in sources %}
{%- if s.dataset is not defined or s.path is not defined %}
{{ exceptions.raise_compiler_error("wide_sources entries need keys 'dataset' and 'path', got: " ~ s) }}
{%- endif %}
{%- set delim = wag_sql_string(s.delim if s.delim is defined and s.delim else ',') -%}
{%- set quote = wag_sql_string(s.quote if s.quote is defined and s.quote else '"') -%}
{%- set decimal_comma = s.decimal is defined and s.decimal == ',' %}
select
    {{ wag_sql_string(s.dataset) }} as dataset,
    source_row,
    participant_id,
    date_text,
    column_name,
    {%- if decimal_comma %}
    regexp_replace(raw_value, '^(\s*-?[0-9]+),([0-9]+\s*)$', '\1.\2') as raw_value
    {%- else %}
    raw_value
    {%- endif %}
from (
    select
        row_number() over () as source_row,
        participant_id,
        {{ wag_q('date') }} as date_text,
        columns(* exclude (participant_id, {{ wag_q('date') }}))
    from read_csv(
        {{ wag_glob_literal(s.path) }},
        header = true, all_varchar = true, delim = {{ delim }}, quote = {{ quote }}, escape = {{ quote }}
    )
)
unpivot include nulls (raw_value for column_name in (columns(* exclude (source_row, participant_id, date_text))))
{% if not loop.last %}union all{% endif %}
{%- endfor %}
{%- endif %}
