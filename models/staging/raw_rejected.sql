{#-
  Quarantine (issue 9 item 1): every raw record a staging model cannot use, with where it is and why.

  Output: one row per (record, reason): dataset, file (path under data_dir), locator (where in the
  file: 'element N' of a JSON array, 'line N' of a CSV counting the header as line 1, plus the
  record's id where it has one), raw_text (the record as read, at most 500 characters), reason
  (fixed text, counted per file by `wag build`) and bad_value (the offending text).

  Each block reads the same file as its staging model and applies the same parsing macros
  (macros/quarantine.sql), so a record is either read by staging or listed here. Missing values
  (empty fields, Fitbit's 0 "no estimate") are missing, not rejected; known alternative spellings
  (isMainSleep for mainSleep, 'T' or space in timestamps, '.000', 'Z') are read.

  Covered: PMData sleep.json, resting_heart_rate.json, wellness.csv, sleep_score.csv, srpe.csv;
  GLOBEM ema.csv, dep_weekly.csv.
-#}
{%- set sleep_glob = 'pmdata/*/fitbit/sleep.json' -%}
{%- set rhr_glob = 'pmdata/*/fitbit/resting_heart_rate.json' -%}
{%- set wellness_glob = 'pmdata/*/pmsys/wellness.csv' -%}
{%- set score_glob = 'pmdata/*/fitbit/sleep_score.csv' -%}
{%- set srpe_glob = 'pmdata/*/pmsys/srpe.csv' -%}
{%- set globem_surveys = [('globem/*/SurveyData/ema.csv', ['phq4_EMA', 'phq4_anxiety_EMA', 'phq4_depression_EMA',
                           'pss4_EMA', 'positive_affect_EMA', 'negative_affect_EMA']),
                          ('globem/*/SurveyData/dep_weekly.csv', ['feel_anxious', 'feel_depressed'])] -%}
{%- set root = var('data_dir') | string -%}
{%- set sleep_numbers = ['minutesToFallAsleep', 'minutesAsleep', 'minutesAwake', 'minutesAfterWakeup',
                         'timeInBed', 'efficiency'] -%}
{%- set parts = [] -%}

{%- if wag_files_exist(sleep_glob) %}
{%- set part -%}
select 'pmdata' as dataset, filename, 'element ' || n || coalesce(' (logId ' || nullif(trim(f.logId), '') || ')', '') as locator,
       raw, unnest(list_filter([
    {{ wag_reject_if(wag_is_blank('f.logId'), 'no logId (duplicates cannot be told apart)') }},
    {{ wag_reject_if(wag_is_blank('f.mainSleep') ~ ' and ' ~ wag_is_blank('f.isMainSleep'),
                     'no main-sleep flag (mainSleep or isMainSleep)') }},
    {{ wag_reject_if('not (' ~ wag_is_blank('coalesce(f.mainSleep, f.isMainSleep)') ~ ') and coalesce('
                     ~ wag_parse_flag('f.mainSleep') ~ ', ' ~ wag_parse_flag('f.isMainSleep') ~ ') is null',
                     'main-sleep flag is not true/false', 'coalesce(f.mainSleep, f.isMainSleep)') }},
    {{ wag_reject_if(wag_parse_timestamp('f.dateOfSleep') ~ ' is null and ' ~ wag_parse_timestamp('f.endTime') ~ ' is null',
                     'no day: neither dateOfSleep nor endTime is a date (YYYY-MM-DD[ HH:MM:SS])',
                     "coalesce(f.dateOfSleep, '') || ' / ' || coalesce(f.endTime, '')") }},
    {%- for col in ['startTime', 'endTime'] %}
    {{ wag_reject_if('not ' ~ wag_is_blank('f.' ~ col) ~ ' and ' ~ wag_parse_timestamp('f.' ~ col) ~ ' is null',
                     col ~ ' is not a timestamp (YYYY-MM-DD[ T]HH:MM:SS)', 'f.' ~ col) }},
    {%- endfor %}
    {%- for col in sleep_numbers %}
    {{ wag_reject_if('not ' ~ wag_is_blank('f.' ~ col) ~ ' and ' ~ wag_parse_number('f.' ~ col) ~ ' is null',
                     col ~ ' is not a number', 'f.' ~ col) }}{{ "," if not loop.last }}
    {%- endfor %}
  ], lambda r: r is not null)) as rejection
from (
    select filename, row_number() over (partition by filename) as n, left(json::varchar, 500) as raw,
           {
             {%- for col in ['logId', 'dateOfSleep', 'startTime', 'endTime', 'mainSleep', 'isMainSleep'] + sleep_numbers %}
             {{ col }}: json_extract_string(json, '$.{{ col }}'){{ "," if not loop.last }}
             {%- endfor %}
           } as f
    from {{ wag_read_json_objects(sleep_glob) }}
)
-- a log that is not the main sleep is skipped by rule; its fields are not checked
where coalesce({{ wag_parse_flag('f.mainSleep') }}, {{ wag_parse_flag('f.isMainSleep') }}, true)
{%- endset %}{% do parts.append(part) %}
{%- endif %}

{%- if wag_files_exist(rhr_glob) %}
{%- set part -%}
select 'pmdata' as dataset, filename, 'element ' || n || coalesce(' (dateTime ' || nullif(trim(date_time), '') || ')', '') as locator,
       raw, unnest(list_filter([
    {{ wag_reject_if(wag_is_blank('date_time'), 'empty dateTime') }},
    {{ wag_reject_if('not ' ~ wag_is_blank('date_time') ~ ' and ' ~ wag_parse_date('date_time') ~ ' is null',
                     'dateTime is not a date (YYYY-MM-DD[ HH:MM:SS])', 'date_time') }},
    {{ wag_reject_if('not ' ~ wag_is_blank('bpm') ~ ' and ' ~ wag_parse_number('bpm') ~ ' is null',
                     'value.value is not a number', 'bpm') }}
  ], lambda r: r is not null)) as rejection
from (
    select filename, row_number() over (partition by filename) as n, left(json::varchar, 500) as raw,
           json_extract_string(json, '$.dateTime') as date_time,
           json_extract_string(json, '$.value.value') as bpm
    from {{ wag_read_json_objects(rhr_glob) }}
)
{%- endset %}{% do parts.append(part) %}
{%- endif %}

{%- if wag_files_exist(wellness_glob) %}
{%- set items = ['fatigue', 'mood', 'readiness', 'stress'] -%}
{%- set part -%}
select 'pmdata' as dataset, filename, 'line ' || (n + 1) as locator,
       raw, unnest(list_filter([
    {{ wag_reject_if(wag_is_blank('effective_time_frame'), 'empty effective_time_frame') }},
    {{ wag_reject_if('not ' ~ wag_is_blank('effective_time_frame') ~ ' and ' ~ wag_parse_utc_timestamp('effective_time_frame') ~ ' is null',
                     'effective_time_frame is not a timestamp with zone (YYYY-MM-DDTHH:MM:SSZ)', 'effective_time_frame') }},
    {%- for col in items %}
    {{ wag_reject_if('not ' ~ wag_is_blank(col) ~ ' and ' ~ wag_parse_number(col) ~ ' is null',
                     col ~ ' is not a number', col) }}{{ "," if not loop.last }}
    {%- endfor %}
  ], lambda r: r is not null)) as rejection
from (
    select *, row_number() over (partition by filename) as n,
           left(concat_ws(',', effective_time_frame, {{ items | join(', ') }}), 500) as raw
    from {{ wag_read_csv(wellness_glob, "all_varchar = true, union_by_name = true, delim = ','") }}
)
{%- endset %}{% do parts.append(part) %}
{%- endif %}

{%- if wag_files_exist(score_glob) %}
{%- set part -%}
select 'pmdata' as dataset, filename, 'line ' || (n + 1) || coalesce(' (sleep_log_entry_id ' || nullif(trim(sleep_log_entry_id), '') || ')', '') as locator,
       raw, unnest(list_filter([
    {{ wag_reject_if(wag_is_blank('"timestamp"'), 'empty timestamp') }},
    {{ wag_reject_if('not ' ~ wag_is_blank('"timestamp"') ~ ' and ' ~ wag_parse_timestamp('"timestamp"') ~ ' is null',
                     'timestamp is not a timestamp (YYYY-MM-DDTHH:MM:SS[Z])', '"timestamp"') }},
    {{ wag_reject_if('not ' ~ wag_is_blank('overall_score') ~ ' and ' ~ wag_parse_number('overall_score') ~ ' is null',
                     'overall_score is not a number', 'overall_score') }}
  ], lambda r: r is not null)) as rejection
from (
    select *, row_number() over (partition by filename) as n,
           left(concat_ws(',', "timestamp", sleep_log_entry_id, overall_score), 500) as raw
    from {{ wag_read_csv(score_glob, "all_varchar = true, union_by_name = true, delim = ','") }}
)
{%- endset %}{% do parts.append(part) %}
{%- endif %}

{%- if wag_files_exist(srpe_glob) %}
{%- set part -%}
select 'pmdata' as dataset, filename, 'line ' || (n + 1) as locator,
       raw, unnest(list_filter([
    {{ wag_reject_if(wag_is_blank('end_date_time'), 'empty end_date_time') }},
    {{ wag_reject_if('not ' ~ wag_is_blank('end_date_time') ~ ' and ' ~ wag_parse_utc_timestamp('end_date_time') ~ ' is null',
                     'end_date_time is not a timestamp with zone (YYYY-MM-DDTHH:MM:SSZ)', 'end_date_time') }},
    {%- for col in ['perceived_exertion', 'duration_min'] %}
    {{ wag_reject_if('not ' ~ wag_is_blank(col) ~ ' and ' ~ wag_parse_number(col) ~ ' is null',
                     col ~ ' is not a number', col) }}{{ "," if not loop.last }}
    {%- endfor %}
  ], lambda r: r is not null)) as rejection
from (
    select *, row_number() over (partition by filename) as n,
           left(concat_ws(',', end_date_time, activity_names, perceived_exertion, duration_min), 500) as raw
    from {{ wag_read_csv(srpe_glob, "all_varchar = true, union_by_name = true, delim = ','") }}
)
{%- endset %}{% do parts.append(part) %}
{%- endif %}

{%- for glob, items in globem_surveys if wag_files_exist(glob) %}
{%- set part -%}
select 'globem' as dataset, filename, 'line ' || (n + 1) || ' (pid ' || coalesce(pid, '') || ', ' || item || ')' as locator,
       raw, unnest(list_filter([
    {{ wag_reject_if(wag_parse_date('"date"') ~ ' is null',
                     'date is not a date (YYYY-MM-DD)', '"date"') }},
    {{ wag_reject_if('not ' ~ wag_is_blank('raw_value') ~ ' and ' ~ wag_parse_number('raw_value') ~ ' is null',
                     'survey answer is not a number', 'raw_value') }}
  ], lambda r: r is not null)) as rejection
from (
    select filename, n, pid, "date", item, raw_value,
           left('pid=' || coalesce(pid, '') || ', date=' || coalesce("date", '') || ', ' || item || '=' || raw_value, 500) as raw
    from (
        unpivot (
            select *, row_number() over (partition by filename) as n
            from {{ wag_read_csv(glob, "all_varchar = true, union_by_name = true, delim = ',', quote = '\"', escape = '\"'") }}
        )
        on columns(* exclude (filename, pid, "date", n))
        into name item value raw_value
    )
    where item in ({% for i in items %}'{{ i }}'{{ ", " if not loop.last }}{% endfor %})
      and not {{ wag_is_blank('raw_value') }}
)
{%- endset %}{% do parts.append(part) %}
{%- endfor %}

with rejected as (
    {%- if parts %}
    {{ parts | join('\n    union all\n') }}
    {%- else %}
    select cast(null as varchar) as dataset, cast(null as varchar) as filename, cast(null as varchar) as locator,
           cast(null as varchar) as raw,
           cast(null as struct(reason varchar, bad_value varchar)) as rejection
    where false
    {%- endif %}
)

select
    cast(dataset as varchar) as dataset,
    cast(replace(filename, '\', '/') as varchar) as full_path,
    cast(substr(replace(filename, '\', '/'), length('{{ root.rstrip('/') }}') + 2) as varchar) as file,
    cast(locator as varchar) as locator,
    cast(raw as varchar) as raw_text,
    cast(rejection.reason as varchar) as reason,
    cast(rejection.bad_value as varchar) as bad_value
from rejected
where rejection is not null
