{#-
  A person's Oura export (issue 28; DESIGN.md §2 "A person's own export"): oura/<person>/, holding the
  files of Oura's data export in either spelling, per entity (daily_sleep, sleep, daily_activity,
  daily_readiness, daily_spo2):
    * <entity>.json: an API v2 document {"data": [{…}, …], "next_token": …} (a bare top-level array of
      the same objects is read too);
    * <entity>.csv: one row per object, the v2 field names as the header (',' or ';' delimiter, sniffed);
      a nested field (spo2_percentage) as a number or as its JSON text ('{"average": 97.2}').
  The file names of Oura's own export (the membership hub's "Export data" zip, folder "App Data":
  dailysleep.csv, sleepmodel.csv, dailyactivity.csv, dailyreadiness.csv, dailyspo2.csv, ';'-delimited,
  v2 field names, nested fields as JSON text; also spelled SleepModel.csv, DailySleep.csv, …) are read
  as the same entities (oura_file_names).
  Files may sit directly in oura/<person>/ or in any sub-folder of it; person = the first folder under oura/.
  Both spellings are read into one relation of JSON objects, so the staging models extract each field
  with one expression whatever the file type (CSV cells arrive as JSON strings and are cast the same way).
  DuckDB only (read_json_objects, to_json of a row).
-#}

{% macro oura_file_names(entity) -%}
  {#- The file names (without extension) an entity is read from: the API v2 name, and the names of
      Oura's own export (lower case and CamelCase). -#}
  {{ return({
      'sleep': ['sleep', 'sleepmodel', 'SleepModel'],
      'daily_sleep': ['daily_sleep', 'dailysleep', 'DailySleep'],
      'daily_activity': ['daily_activity', 'dailyactivity', 'DailyActivity'],
      'daily_readiness': ['daily_readiness', 'dailyreadiness', 'DailyReadiness'],
      'daily_spo2': ['daily_spo2', 'dailyspo2', 'DailySpo2', 'DailySpO2'],
  }[entity]) }}
{%- endmacro %}


{% macro oura_globs(entity) -%}
  {#- The entity's globs under data_dir that match at least one file: (glob, 'json' | 'csv') pairs. -#}
  {%- set found = [] -%}
  {%- for name in oura_file_names(entity) -%}
    {%- for ext in ['json', 'csv'] -%}
      {%- set glob = 'oura/*/**/' ~ name ~ '.' ~ ext -%}
      {%- if wag_files_exist(glob) -%}{%- do found.append((glob, ext)) -%}{%- endif -%}
    {%- endfor -%}
  {%- endfor -%}
  {{ return(found) }}
{%- endmacro %}


{% macro oura_files_exist(entity) -%}
  {#- True when the export holds the entity's file in any spelling. -#}
  {{ return(oura_globs(entity) | length > 0) }}
{%- endmacro %}


{% macro oura_person_expr() -%}
  {#- The person of an Oura export file from its path: the first folder under data_dir/oura/. -#}
  split_part(substr({{ wag_path_slashes('filename') }}, length({{ wag_sql_string(wag_file_root() ~ '/oura/') }}) + 1), '/', 1)
{%- endmacro %}


{% macro oura_documents(entity) -%}
  {#- A relation with one row per object of the entity's files: filename, locator ('data[N]' of a JSON
      document, 0-based as in JSON; 'line N' of a CSV, the header being line 1), pid (the person) and
      doc (the object as JSON). Empty when the export has no such file. -#}
  {%- set parts = [] -%}
  {%- for glob, ext in oura_globs(entity) -%}
  {%- if ext == 'json' -%}
    {%- set part -%}
    select filename, 'data[' || i || ']' as locator, arr -> (cast(i as integer)) as doc
    from (
        select filename, arr, unnest(range(cast(coalesce(json_array_length(arr), 0) as bigint))) as i
        from (
            select filename,
                   case when json_type(json) = 'ARRAY' then json else json -> '$.data' end as arr
            from read_json_objects({{ wag_data_glob(glob) }}, filename = true, format = 'unstructured')
        ) as files
    ) as elements
    {%- endset -%}
    {%- do parts.append(part) -%}
  {%- else -%}
    {%- set part -%}
    select filename, 'line ' || (n + 1) as locator, doc
    from (
        select r.filename, {{ wag_file_row_number() }} as n, cast(to_json(r) as json) as doc
        from read_csv({{ wag_data_glob(glob) }}, filename = true, header = true, all_varchar = true,
                      union_by_name = true) as r
    ) as rows
    {%- endset -%}
    {%- do parts.append(part) -%}
  {%- endif -%}
  {%- endfor -%}
  {%- if parts -%}
  (select filename, locator, {{ oura_person_expr() }} as pid, doc
   from ({{ parts | join('\n    union all\n    ') }}) as docs)
  {%- else -%}
  (select cast(null as string) as filename, cast(null as string) as locator, cast(null as string) as pid,
          cast(null as json) as doc where false)
  {%- endif -%}
{%- endmacro %}


{% macro oura_text(path) -%}
  {#- The text of field `path` ('$.score', '$.spo2_percentage.average') of `doc`. -#}
  (doc ->> {{ wag_sql_string(path) }})
{%- endmacro %}


{% macro oura_number(field) -%}
  {#- A DOUBLE from a top-level field of `doc` (a JSON number or a CSV cell); NULL when empty or not a number. -#}
  {{ wag_parse_number(oura_text('$.' ~ field)) }}
{%- endmacro %}


{% macro oura_spo2_text() -%}
  {#- The text of the nightly SpO2 average: spo2_percentage.average of a JSON document, or the CSV cell
      spo2_percentage holding that object's JSON text or a bare number, or a flattened column
      spo2_percentage.average / spo2_percentage_average. -#}
  coalesce(
      case when json_type(doc -> '$.spo2_percentage') = 'OBJECT' then {{ oura_text('$.spo2_percentage.average') }} end,
      case when left(ltrim({{ oura_text('$.spo2_percentage') }}), 1) = chr(123)
           then json_extract_string(try_cast({{ oura_text('$.spo2_percentage') }} as json), '$.average')
           else {{ oura_text('$.spo2_percentage') }} end,
      {{ oura_text('$."spo2_percentage.average"') }},
      {{ oura_text('$.spo2_percentage_average') }})
{%- endmacro %}


{% macro oura_entities() -%}
  {#- Per entity: the field that dates the object (and its kind for wag_check_day), and the numeric
      fields the staging models read. raw_rejected checks exactly these. -#}
  {{ return({
      'sleep': {'day': ('bedtime_end', 'timestamp', 'YYYY-MM-DDTHH:MM:SS+HH:MM'),
                'numbers': ['time_in_bed', 'total_sleep_duration', 'awake_time', 'light_sleep_duration',
                            'deep_sleep_duration', 'rem_sleep_duration', 'latency', 'efficiency',
                            'lowest_heart_rate', 'average_heart_rate', 'average_hrv', 'average_breath']},
      'daily_sleep': {'day': ('day', 'date', 'YYYY-MM-DD'), 'numbers': ['score']},
      'daily_activity': {'day': ('day', 'date', 'YYYY-MM-DD'),
                         'numbers': ['steps', 'active_calories', 'total_calories', 'equivalent_walking_distance',
                                     'high_activity_time', 'medium_activity_time', 'low_activity_time',
                                     'sedentary_time', 'resting_time', 'non_wear_time']},
      'daily_readiness': {'day': ('day', 'date', 'YYYY-MM-DD'), 'numbers': ['score', 'temperature_deviation']},
      'daily_spo2': {'day': ('day', 'date', 'YYYY-MM-DD'), 'numbers': []},
  }) }}
{%- endmacro %}


{% macro oura_rejections() -%}
  {#- The raw_rejected blocks of the Oura export: per entity present, an object whose dating field is
      empty or not a (plausible) date/timestamp, or a read numeric field that is not a number. An object
      of type 'deleted' (Oura's own tombstone) is skipped by rule, not rejected. -#}
  {%- set parts = [] -%}
  {%- for entity, spec in oura_entities().items() if oura_files_exist(entity) -%}
    {%- set day_field, kind, format = spec['day'] -%}
    {%- set rel -%}
    (select filename, locator, left(cast(doc as string), 500) as raw_json,
            {{ oura_text('$.' ~ day_field) }} as day_text,
            {%- for f in spec['numbers'] %}
            {{ oura_text('$.' ~ f) }} as {{ wag_q('n_' ~ f) }},
            {%- endfor %}
            {{ oura_spo2_text() if entity == 'daily_spo2' else 'null' }} as spo2_text
     from {{ oura_documents(entity) }} as d
     where coalesce({{ oura_text('$.type') }}, '') <> 'deleted')
    {%- endset -%}
    {%- set checks = [wag_check_day('day_text', day_field, kind, format)] -%}
    {%- for f in spec['numbers'] -%}{%- do checks.append(wag_check_number(wag_q('n_' ~ f), f)) -%}{%- endfor -%}
    {%- if entity == 'daily_spo2' -%}{%- do checks.append(wag_check_number('spo2_text', 'spo2_percentage.average')) -%}{%- endif -%}
    {%- do parts.append(wag_rejections('oura', rel, "locator || coalesce(' (' || " ~ wag_sql_string(day_field ~ ' ')
                                       ~ " || nullif(trim(day_text), '') || ')', '')", 'raw_json', checks)) -%}
  {%- endfor -%}
  {{ return(parts) }}
{%- endmacro %}


{% macro oura_daily_model(entity) -%}
  {#- The body of stg_oura__<entity> for a daily document (daily_sleep, daily_activity, daily_readiness,
      daily_spo2): one row per object, renamed and cast: subject_id, filename, locator, day (Oura's `day`),
      recorded_at (its `timestamp`, local wall clock), and the entity's numeric fields (oura_entities;
      daily_spo2: spo2_average). Values not a number are NULL here and listed in raw_rejected. -#}
  {%- set numbers = oura_entities()[entity]['numbers'] -%}
  {%- if oura_files_exist(entity) %}
with documents as (
    select * from {{ oura_documents(entity) }}
),

renamed as (
    select
        cast('oura:' || pid as string)                            as subject_id,
        cast(filename as string)                                  as filename,
        cast(locator as string)                                   as locator,
        cast({{ wag_parse_date(oura_text('$.day')) }} as date)    as day,
        {{ wag_parse_timestamp(oura_text('$.timestamp'), false) }} as recorded_at,
        {%- for f in numbers %}
        cast({{ oura_number(f) }} as double)                      as {{ f }},
        {%- endfor %}
        {%- if entity == 'daily_spo2' %}
        cast({{ wag_parse_number(oura_spo2_text()) }} as double)  as spo2_average,
        {%- endif %}
        cast(coalesce({{ oura_text('$.type') }}, '') = 'deleted' as boolean) as is_deleted
    from documents
    where pid <> ''
)

select * from renamed
  {%- else %}
select cast(null as string) as subject_id, cast(null as string) as filename, cast(null as string) as locator,
       cast(null as date) as day, cast(null as timestamp) as recorded_at,
       {%- for f in numbers %}
       cast(null as double) as {{ f }},
       {%- endfor %}
       {%- if entity == 'daily_spo2' %}
       cast(null as double) as spo2_average,
       {%- endif %}
       cast(null as boolean) as is_deleted
where false
  {%- endif %}
{%- endmacro %}
