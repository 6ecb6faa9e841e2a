{#-
  GLOBEM Fitbit step features -> staging contract (DESIGN.md §2; FORMATS.md §3.2, §5).

  Input : globem/<study>/FeatureData/steps.csv (RAPIDS, ~596 columns, one row per pid x date).
          Raw `allday` features only: fitbit_steps_intraday_rapids_{sumsteps, sumdurationactivebout,
          sumdurationsedentarybout} (steps; minutes; minutes).
  Output: one row per (subject_id, day, raw_field); raw_field = 'steps.' || RAPIDS feature name;
          day = the row's date (00:00-23:59 local, FORMATS §3.2).

  Rules
  * Empty field = missing = no row.
  * No-wear rule (DESIGN §2: "0 steps and no heart-rate data that day is missing, not zero";
    GLOBEM has no heart rate): a day with sumsteps = 0 is treated as not worn and none of its three
    step features is written. In RAPIDS a non-worn minute has 0 steps and counts as sedentary, so
    such a day reads 0 steps / 0 active / 1440 sedentary minutes. The excerpts have no 0-step day
    (minimum 77 steps); active + sedentary = 1440 on every observed day.
  * The sedentary-bout minutes therefore include sleep and any non-wear minutes of a worn day
    (RAPIDS bouts are minute-level step thresholds, not Fitbit's sedentary_minutes).
  * (pid, date) duplicates across study folders (not observed) are averaged.
-#}
{{ config(materialized='table') }}
{#- Wide RAPIDS CSVs: fixing the dialect skips DuckDB's sniffer (~10x faster on 1000-column files);
    a table, not a view, so tests and downstream models parse the CSVs once. -#}
{%- set csv_opts = "all_varchar = true, union_by_name = true, delim = ',', quote = '\"', escape = '\"'" -%}
{%- set steps_glob = 'globem/*/FeatureData/steps.csv' -%}
{%- set prefix = 'f_steps:fitbit_steps_intraday_rapids_' -%}
{%- set features = ['sumsteps', 'sumdurationactivebout', 'sumdurationsedentarybout'] -%}
{%- if wag_files_exist(steps_glob) %}
with raw as (
    select
        trim(pid) as pid,
        cast(strptime(trim("date"), '%Y-%m-%d') as date) as day,
        {%- for f in features %}
        "{{ prefix }}{{ f }}:allday" as "{{ f }}"{{ "," if not loop.last }}
        {%- endfor %}
    from {{ wag_read_csv(steps_glob, csv_opts) }}
    -- no-wear day: 0 steps over the whole day
    where try_cast(trim("{{ prefix }}sumsteps:allday") as double) is distinct from 0
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
    'steps.fitbit_steps_intraday_rapids_' || feature as raw_field,
    avg(try_cast(trim(raw_value) as double)) as value,
    cast(null as varchar) as value_text
from long
where try_cast(trim(raw_value) as double) is not null
group by pid, day, feature
{%- else %}
{{ wag_empty_raw() }}
{%- endif %}
