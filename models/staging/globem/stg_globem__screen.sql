{#-
  GLOBEM phone screen features -> staging contract (DESIGN.md §2; FORMATS.md §3.2, §5).

  Input : globem/<study>/FeatureData/screen.csv (RAPIDS, ~1136 columns, one row per pid x date).
          Raw `allday` features phone_screen_rapids_countepisodeunlock (unlock episodes) and
          phone_screen_rapids_sumdurationunlock (minutes of unlocked screen).
  Output: one row per (subject_id, day, raw_field); raw_field = 'screen.' || RAPIDS feature name;
          day = the row's date.

  Rules: empty field = missing = no row; (pid, date) duplicates across study folders (not
  observed) are averaged.
-#}
{{ config(materialized='table') }}
{#- Wide RAPIDS CSVs: fixing the dialect skips DuckDB's sniffer (~10x faster on 1000-column files);
    a table, not a view, so tests and downstream models parse the CSVs once. -#}
{%- set csv_opts = "all_varchar = true, union_by_name = true, delim = ',', quote = '\"', escape = '\"'" -%}
{%- set screen_glob = 'globem/*/FeatureData/screen.csv' -%}
{%- set prefix = 'f_screen:phone_screen_rapids_' -%}
{%- set features = ['countepisodeunlock', 'sumdurationunlock'] -%}
{%- if wag_files_exist(screen_glob) %}
with raw as (
    select
        trim(pid) as pid,
        cast(strptime(trim("date"), '%Y-%m-%d') as date) as day,
        {%- for f in features %}
        "{{ prefix }}{{ f }}:allday" as "{{ f }}"{{ "," if not loop.last }}
        {%- endfor %}
    from {{ wag_read_csv(screen_glob, csv_opts) }}
),

long as (
    unpivot raw
    on {% for f in features %}"{{ f }}"{{ ", " if not loop.last }}{% endfor %}
    into name feature value raw_value
)

select
    'globem' as dataset,
    'globem:' || pid as subject_id,
    day,
    'screen.phone_screen_rapids_' || feature as raw_field,
    avg(try_cast(trim(raw_value) as double)) as value,
    cast(null as varchar) as value_text
from long
where try_cast(trim(raw_value) as double) is not null
group by pid, day, feature
{%- else %}
{{ wag_empty_raw() }}
{%- endif %}
