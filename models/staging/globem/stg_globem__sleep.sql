{#-
  GLOBEM Fitbit sleep features -> staging contract (DESIGN.md §2; FORMATS.md §3.2, §0.4, §0.5, §5).

  Input : globem/<study>/FeatureData/sleep.csv (RAPIDS features, ~920 columns, one row per pid x date;
          <study> = INS-W_1..4 or INS-W-sample_1..4). Only the raw (unsuffixed) `allday` features of
          the Fitbit sleep summary are read; every value is read as text and cast here (pandas floats,
          scientific notation occurs).
  Output: one row per (subject_id, day, raw_field); raw_field = 'sleep.' || RAPIDS feature name,
          value in the RAPIDS unit (minutes, %, minutes after 00:00 of the row's date).

  Day attribution (FORMATS §0.4, §3.2: sumdurationinbedmain(D) = 1440 - firstbedtimemain(D)
  + lastwaketimemain(D+1)):
  * duration, efficiency and bedtime features on row D describe the main sleep(s) of the night
    D -> D+1, so they are written on day D+1, the wake-up day (DESIGN §2);
  * lastwaketimemain on row D is the wake-up on the morning of D: it stays on day D.
  * firstbedtimemain keeps its raw value (minutes after 00:00 of row date D, e.g. 1483 = 00:43 on
    D+1); the field map converts it to minutes relative to midnight of the wake-up day with
    offset -1440 (1483 -> 43, 1380 = 23:00 on D -> -60).

  Sentinels / missing (FORMATS §0.5):
  * empty field = missing = no row;
  * countepisodemain = 0 (no main sleep that night) comes with 0 in every sum-duration feature and
    empty efficiency/bedtime: those zeros are "no sleep recorded", not a real 0, so duration,
    efficiency and bedtime rows are only written when countepisodemain >= 1.
  * countepisodemain = 2 (two main-sleep logs started the same evening, e.g. a long evening nap
    and a short night sleep): the RAPIDS sums cover both logs, firstbedtimemain is the start of
    the first one; kept as RAPIDS gives them.
  * lastwaketimemain is kept whenever present (it can be negative: a wake-up before midnight).

  Parsing: date and every cell read are parsed by the macros of macros/quarantine.sql; a row whose
  date does not parse, or a non-empty cell that is not a number, gives no row and is listed in
  raw_rejected (the columns read are those of globem_feature_files, macros/globem.sql).
  Duplicates: (pid, date) is unique per study file; should the same pid and date occur twice
  (two study folders), the values are averaged (not observed).
  subject_id = 'globem:<study>/<pid>' (macro globem_subject_key: a pid is unique only within its
  study; globem/subject_map.csv may say two are the same person).
-#}
{{ config(materialized='table') }}
{#- Wide RAPIDS CSVs: fixing the dialect skips DuckDB's sniffer (~10x faster on 1000-column files);
    a table, not a view, so tests and downstream models parse the CSVs once. -#}
{%- set csv_opts = "all_varchar = true, union_by_name = true, delim = ',', quote = '\"', escape = '\"'" -%}
{%- set sleep_glob = wag_source_glob('globem_raw', 'sleep') -%}
{%- set spec = globem_feature_files()['sleep'] -%}
{%- set prefix = spec.prefix -%}
{#- RAPIDS feature -> shifted to the wake-up day (D+1)? (countepisodemain is the flag, not a feature) -#}
{%- set features = {} -%}
{%- for f in spec.features if f != 'countepisodemain' -%}
{%- do features.update({f: f != 'lastwaketimemain'}) -%}
{%- endfor -%}
{%- if wag_files_exist(sleep_glob) %}
with raw as (
    select
        {{ globem_subject_key('filename', 'pid') }} as pid,
        {{ wag_parse_date(wag_q('date')) }} as row_date,
        {{ wag_parse_number(wag_q(prefix ~ 'countepisodemain:allday')) }} as n_main_sleeps,
        {%- for f in features %}
        {{ wag_q(prefix ~ f ~ ':allday') }} as {{ wag_q(f) }}{{ "," if not loop.last }}
        {%- endfor %}
    from {{ wag_read_csv(sleep_glob, csv_opts) }}
    where {{ wag_parse_date(wag_q('date')) }} is not null
),

long as (
    {{ wag_unpivot('raw', features | list, 'feature', 'raw_value') }}
),

typed as (
    select
        pid,
        feature,
        case
            when feature in ({% for f, shifted in features.items() if shifted %}'{{ f }}'{{ ", " if not loop.last }}{% endfor %})
                then cast(row_date + interval 1 day as date)
            else row_date
        end as day,
        {{ wag_parse_number('raw_value') }} as value,
        feature = 'lastwaketimemain' or coalesce(n_main_sleeps, 0) >= 1 as is_real_sleep
    from long
)

select
    'globem' as dataset,
    'globem:' || pid as subject_id,
    day,
    'sleep.fitbit_sleep_summary_rapids_' || feature as raw_field,
    avg(value) as value,
    cast(null as string) as value_text
from typed
where value is not null and is_real_sleep
group by pid, day, feature
{%- else %}
{{ wag_empty_raw() }}
{%- endif %}
