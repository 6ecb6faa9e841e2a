{% macro globem_allday_features(sensor, column_prefix, raw_prefix, features, where=none, derived={}) -%}
{#-
  GLOBEM RAPIDS feature file -> staging contract rows (DESIGN.md §2; FORMATS.md §3.2).

  sensor         file name under globem/<study>/FeatureData/, e.g. 'screen' (screen.csv)
  column_prefix  RAPIDS column prefix, e.g. 'f_screen:phone_screen_rapids_'
  raw_prefix     raw_field prefix, e.g. 'screen.phone_screen_rapids_'
  features       RAPIDS feature names; the raw `allday` column '<column_prefix><feature>:allday' is read
  where          optional SQL condition on the raw columns (e.g. a no-wear rule)
  derived        optional {name: SQL expression} of extra features computed from the raw columns

  One row per (subject, day, feature) with a numeric value; empty = missing = no row; (pid, date)
  duplicates across study folders (not observed) are averaged. date and the feature cells are parsed
  by the macros of macros/quarantine.sql: a row whose date does not parse, or a non-empty feature
  cell that is not a number, gives no row and is listed in raw_rejected (which checks the columns of
  globem_feature_files). A file lacking one of the columns
  stops the build with an error naming it. Fixing the CSV dialect skips DuckDB's sniffer, about 10x
  faster on these 1,000-column files.
-#}
{%- set csv_opts = "all_varchar = true, union_by_name = true, delim = ',', quote = '\"', escape = '\"'" -%}
{%- set file_glob = wag_source_glob('globem_raw', sensor) -%}
{%- set required = ['pid', 'date'] -%}
{%- for f in features -%}{%- do required.append(column_prefix ~ f ~ ':allday') -%}{%- endfor -%}
{%- if wag_files_exist(file_glob) %}
with raw as (
    select
        {{ globem_subject_key('filename', 'pid') }} as pid,
        {{ wag_parse_date(wag_q('date')) }} as day,
        {%- for f in features %}
        {{ wag_q(column_prefix ~ f ~ ':allday') }} as {{ wag_q(f) }}{{ "," if not loop.last or derived }}
        {%- endfor %}
        {%- for name, expr in derived.items() %}
        cast({{ expr }} as string) as {{ wag_q(name) }}{{ "," if not loop.last }}
        {%- endfor %}
    from {{ wag_read_csv(file_glob, csv_opts, required=required) }}
    where {{ wag_parse_date(wag_q('date')) }} is not null
    {%- if where %}
      and {{ where }}
    {%- endif %}
),

long as (
    {{ wag_unpivot('raw', features + (derived.keys() | list), 'feature', 'raw_value') }}
)

select
    'globem' as dataset,
    'globem:' || pid as subject_id,
    day,
    '{{ raw_prefix }}' || feature as raw_field,
    avg({{ wag_parse_number('raw_value') }}) as value,
    cast(null as string) as value_text
from long
where {{ wag_parse_number('raw_value') }} is not null
group by pid, day, feature
{%- else %}
{{ wag_empty_raw() }}
{%- endif %}
{%- endmacro %}


{% macro globem_subject_key(filename_col='filename', pid_col='pid') -%}
  {#- The participant key of a GLOBEM row, '<study>/<pid>' (issue 9 item 7): a pid is only unique
      within its study folder, so subjects are keyed by study and pid, e.g. 'INS-W_1/INS-W_045'
      (subject_id 'globem:INS-W_1/INS-W_045'). The study is the folder under globem/, with the
      GitHub sample names 'INS-W-sample_<n>' read as the PhysioNet names 'INS-W_<n>'. An optional
      mapping file globem/subject_map.csv (columns study, pid, subject) documents rows that are the
      same person: those get the mapped key `subject` instead (e.g. one key for two study years). -#}
  {%- set study -%}
    regexp_replace(regexp_extract({{ wag_path_slashes(filename_col) }}, '/globem/([^/]+)/[^/]+/[^/]+$', 1), '^INS-W-sample_', 'INS-W_')
  {%- endset -%}
  {%- if wag_files_exist('globem/subject_map.csv') -%}
    coalesce(
        -- the map's columns are renamed so that filename and pid below bind to the outer row
        (select any_value(m.map_subject)
         from (select trim(study) as map_study, trim(pid) as map_pid, trim(subject) as map_subject
               from {{ wag_read_csv('globem/subject_map.csv', "all_varchar = true", required=['study', 'pid', 'subject']) }}) as m
         where m.map_study = {{ study }} and m.map_pid = trim({{ pid_col }})),
        {{ study }} || '/' || trim({{ pid_col }}))
  {%- else -%}
    ({{ study }} || '/' || trim({{ pid_col }}))
  {%- endif -%}
{%- endmacro %}


{% macro globem_feature_files() -%}
  {#- The RAPIDS `allday` columns staging reads from each GLOBEM feature file
      (globem/<study>/FeatureData/<file>.csv): {file: {prefix, features}}; the column of a feature is
      '<prefix><feature>:allday'. Shared by the stg_globem__* models and raw_rejected, so the cells
      checked are the cells read. sleep's countepisodemain is read as the "a main sleep exists" flag. -#}
  {{ return({
      'sleep': {'prefix': 'f_slp:fitbit_sleep_summary_rapids_',
                'features': ['sumdurationinbedmain', 'sumdurationasleepmain', 'sumdurationawakemain',
                             'sumdurationtofallasleepmain', 'sumdurationafterwakeupmain', 'avgefficiencymain',
                             'firstbedtimemain', 'lastwaketimemain', 'countepisodemain']},
      'steps': {'prefix': 'f_steps:fitbit_steps_intraday_rapids_',
                'features': ['sumsteps', 'sumdurationactivebout', 'sumdurationsedentarybout']},
      'location': {'prefix': 'f_loc:phone_locations_',
                   'features': ['doryab_timeathome', 'doryab_radiusgyration', 'doryab_totaldistance',
                                'barnett_maxhomedist', 'barnett_circdnrtn', 'barnett_hometime', 'barnett_rog',
                                'barnett_disttravelled']},
      'screen': {'prefix': 'f_screen:phone_screen_rapids_',
                 'features': ['countepisodeunlock', 'sumdurationunlock']},
      'call': {'prefix': 'f_call:phone_calls_rapids_',
               'features': ['incoming_count', 'outgoing_count', 'missed_count',
                            'incoming_entropyduration', 'outgoing_entropyduration']},
  }) }}
{%- endmacro %}
