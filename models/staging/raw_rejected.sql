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

  Covered: PMData sleep.json, resting_heart_rate.json, wellness.csv, sleep_score.csv, srpe.csv,
  steps.json, distance.json, the four *_minutes.json, time_in_heart_rate_zones.json, exercise.json,
  googledocs/reporting.csv, pmsys/injury.csv, and the same Fitbit files of a person's Takeout export
  (dataset fitbit, issue 28: <name>-YYYY-MM-DD.json, exercise-N.json); LifeSnaps daily_fitbit_sema_df_unprocessed.csv and scored_surveys
  panas/stai/personality.csv; IFH Affect oura sleep.csv, activity.csv (Oura's literal 'null' is a
  missing value); GLOBEM ema.csv, dep_weekly.csv, pre.csv (BFI-10 items) and the feature files sleep/steps/location/screen/
  call.csv (the allday columns of globem_feature_files, macros/globem.sql); Apple Health Record
  elements (stg_apple_health__records, locator = line in export.xml); a person's Oura export (the five
  entity files, JSON or CSV; locator data[N] or line N; macros/oura.sql). The generic blocks are
  built by wag_rejections / wag_check_day / wag_check_number (macros/quarantine.sql).
-#}
{%- set sleep_glob = wag_source_glob('pmdata_raw', 'fitbit_sleep') -%}
{%- set rhr_glob = wag_source_glob('pmdata_raw', 'fitbit_resting_heart_rate') -%}
{%- set wellness_glob = wag_source_glob('pmdata_raw', 'pmsys_wellness') -%}
{%- set score_glob = wag_source_glob('pmdata_raw', 'fitbit_sleep_score') -%}
{%- set srpe_glob = wag_source_glob('pmdata_raw', 'pmsys_srpe') -%}
{%- set globem_surveys = [(wag_source_glob('globem_raw', 'ema'), ['phq4_EMA', 'phq4_anxiety_EMA', 'phq4_depression_EMA',
                           'pss4_EMA', 'positive_affect_EMA', 'negative_affect_EMA']),
                          (wag_source_glob('globem_raw', 'dep_weekly'), ['feel_anxious', 'feel_depressed']),
                          (wag_source_glob('globem_raw', 'pre'), ['BFI10_extroversion_PRE', 'BFI10_agreeableness_PRE',
                           'BFI10_conscientiousness_PRE', 'BFI10_neuroticism_PRE', 'BFI10_openness_PRE'])] -%}
{%- set root = var('data_dir') | string -%}
{%- set sleep_numbers = ['minutesToFallAsleep', 'minutesAsleep', 'minutesAwake', 'minutesAfterWakeup',
                         'timeInBed', 'efficiency'] -%}
{%- set parts = [] -%}

{#- PMData's sleep.json and a person's Takeout sleep-YYYY-MM-DD.json (issue 28): the same objects -#}
{%- for dataset, logs_glob in [('pmdata', sleep_glob), ('fitbit', 'fitbit/*/**/sleep-*.json')] if wag_files_exist(logs_glob) %}
{%- set part -%}
select '{{ dataset }}' as dataset, filename, 'element ' || n || coalesce(' (logId ' || nullif(trim(f.logId), '') || ')', '') as locator,
       raw, {{ wag_nonnull_rows_open() }}
    {{ wag_reject_if(wag_is_blank('f.logId'), 'no logId (duplicates cannot be told apart)') }},
    {{ wag_reject_if(wag_is_blank('f.mainSleep') ~ ' and ' ~ wag_is_blank('f.isMainSleep'),
                     'no main-sleep flag (mainSleep or isMainSleep)') }},
    {{ wag_reject_if('not (' ~ wag_is_blank('coalesce(f.mainSleep, f.isMainSleep)') ~ ') and coalesce('
                     ~ wag_parse_flag('f.mainSleep') ~ ', ' ~ wag_parse_flag('f.isMainSleep') ~ ') is null',
                     'main-sleep flag is not true/false', 'coalesce(f.mainSleep, f.isMainSleep)') }},
    {{ wag_reject_if(wag_parse_timestamp('f.dateOfSleep', false) ~ ' is null and ' ~ wag_parse_timestamp('f.endTime', false) ~ ' is null',
                     'no day: neither dateOfSleep nor endTime is a date (YYYY-MM-DD[ HH:MM:SS])',
                     "coalesce(f.dateOfSleep, '') || ' / ' || coalesce(f.endTime, '')") }},
    {%- set sleep_day = 'coalesce(' ~ wag_parse_date('f.dateOfSleep', false) ~ ', ' ~ wag_parse_date('f.endTime', false) ~ ')' %}
    {%- set days = wag_plausible_days() %}
    {{ wag_reject_if(sleep_day ~ ' is not null and ' ~ wag_plausible(sleep_day) ~ ' is null',
                     'implausible_date (dateOfSleep / endTime outside ' ~ days[0] ~ '..' ~ days[1] ~ ')',
                     "coalesce(f.dateOfSleep, '') || ' / ' || coalesce(f.endTime, '')") }},
    {%- for col in ['startTime', 'endTime'] %}
    {{ wag_reject_if('not ' ~ wag_is_blank('f.' ~ col) ~ ' and ' ~ wag_parse_timestamp('f.' ~ col, false) ~ ' is null',
                     col ~ ' is not a timestamp (YYYY-MM-DD[ T]HH:MM:SS)', 'f.' ~ col) }},
    {%- endfor %}
    {%- for col in sleep_numbers %}
    {{ wag_reject_if('not ' ~ wag_is_blank('f.' ~ col) ~ ' and ' ~ wag_parse_number('f.' ~ col) ~ ' is null',
                     col ~ ' is not a number', 'f.' ~ col) }}{{ "," if not loop.last }}
    {%- endfor %}
  {{ wag_nonnull_rows_close() }} as rejection
from (
    select filename, {{ wag_file_row_number() }} as n, left(cast(json as string), 500) as raw,
           {%- set fields = [] -%}
           {%- for col in ['logId', 'dateOfSleep', 'startTime', 'endTime', 'mainSleep', 'isMainSleep'] + sleep_numbers -%}
             {%- do fields.append((col, wag_json_text('json', '$.' ~ col))) -%}
           {%- endfor %}
           {{ wag_struct(fields) }} as f
    from {{ wag_read_json_objects(logs_glob) }}
)
-- a log that is not the main sleep is skipped by rule; its fields are not checked
where coalesce({{ wag_parse_flag('f.mainSleep') }}, {{ wag_parse_flag('f.isMainSleep') }}, true)
{%- endset %}{% do parts.append(part) %}
{%- endfor %}

{%- for dataset, days_glob, date_format in [('pmdata', rhr_glob, 'YYYY-MM-DD[ HH:MM:SS]'),
                                           ('fitbit', 'fitbit/*/**/resting_heart_rate-*.json', 'MM/DD/YY HH:MM:SS')]
      if wag_files_exist(days_glob) %}
{%- set part -%}
select '{{ dataset }}' as dataset, filename, 'element ' || n || coalesce(' (dateTime ' || nullif(trim(date_time), '') || ')', '') as locator,
       raw, {{ wag_nonnull_rows_open() }}
    {{ wag_reject_if(wag_is_blank('date_time'), 'empty dateTime') }},
    {{ wag_reject_if('not ' ~ wag_is_blank('date_time') ~ ' and ' ~ wag_parse_date('date_time', false) ~ ' is null',
                     'dateTime is not a date (' ~ date_format ~ ')', 'date_time') }},
    {{ wag_check_plausible('date', 'date_time', 'dateTime') }},
    {{ wag_reject_if('not ' ~ wag_is_blank('bpm') ~ ' and ' ~ wag_parse_number('bpm') ~ ' is null',
                     'value.value is not a number', 'bpm') }}
  {{ wag_nonnull_rows_close() }} as rejection
from (
    select filename, {{ wag_file_row_number() }} as n, left(cast(json as string), 500) as raw,
           {{ wag_json_text('json', '$.dateTime') }} as date_time,
           {{ wag_json_text('json', '$.value.value') }} as bpm
    from {{ wag_read_json_objects(days_glob) }}
)
{%- endset %}{% do parts.append(part) %}
{%- endfor %}

{%- if wag_files_exist(wellness_glob) %}
{%- set items = ['fatigue', 'mood', 'readiness', 'stress'] -%}
{%- set part -%}
select 'pmdata' as dataset, filename, 'line ' || (n + 1) as locator,
       raw, {{ wag_nonnull_rows_open() }}
    {{ wag_reject_if(wag_is_blank('effective_time_frame'), 'empty effective_time_frame') }},
    {{ wag_reject_if('not ' ~ wag_is_blank('effective_time_frame') ~ ' and ' ~ wag_parse_utc_timestamp('effective_time_frame', false) ~ ' is null',
                     'effective_time_frame is not a timestamp with zone (YYYY-MM-DDTHH:MM:SSZ)', 'effective_time_frame') }},
    {{ wag_check_plausible('utc_timestamp', 'effective_time_frame', 'effective_time_frame') }},
    {%- for col in items %}
    {{ wag_reject_if('not ' ~ wag_is_blank(col) ~ ' and ' ~ wag_parse_number(col) ~ ' is null',
                     col ~ ' is not a number', col) }}{{ "," if not loop.last }}
    {%- endfor %}
  {{ wag_nonnull_rows_close() }} as rejection
from (
    select *, {{ wag_file_row_number() }} as n,
           left(concat_ws(',', effective_time_frame, {{ items | join(', ') }}), 500) as raw
    from {{ wag_read_csv(wellness_glob, "all_varchar = true, union_by_name = true, delim = ','") }}
)
{%- endset %}{% do parts.append(part) %}
{%- endif %}

{%- if wag_files_exist(score_glob) %}
{%- set part -%}
select 'pmdata' as dataset, filename, 'line ' || (n + 1) || coalesce(' (sleep_log_entry_id ' || nullif(trim(sleep_log_entry_id), '') || ')', '') as locator,
       raw, {{ wag_nonnull_rows_open() }}
    {{ wag_reject_if(wag_is_blank(wag_q('timestamp')), 'empty timestamp') }},
    {{ wag_reject_if('not ' ~ wag_is_blank(wag_q('timestamp')) ~ ' and ' ~ wag_parse_timestamp(wag_q('timestamp'), false) ~ ' is null',
                     'timestamp is not a timestamp (YYYY-MM-DDTHH:MM:SS[Z])', wag_q('timestamp')) }},
    {{ wag_check_plausible('timestamp', wag_q('timestamp'), 'timestamp') }},
    {{ wag_reject_if('not ' ~ wag_is_blank('overall_score') ~ ' and ' ~ wag_parse_number('overall_score') ~ ' is null',
                     'overall_score is not a number', 'overall_score') }}
  {{ wag_nonnull_rows_close() }} as rejection
from (
    select *, {{ wag_file_row_number() }} as n,
           left(concat_ws(',', {{ wag_q('timestamp') }}, sleep_log_entry_id, overall_score), 500) as raw
    from {{ wag_read_csv(score_glob, "all_varchar = true, union_by_name = true, delim = ','") }}
)
{%- endset %}{% do parts.append(part) %}
{%- endif %}

{%- if wag_files_exist(srpe_glob) %}
{%- set part -%}
select 'pmdata' as dataset, filename, 'line ' || (n + 1) as locator,
       raw, {{ wag_nonnull_rows_open() }}
    {{ wag_reject_if(wag_is_blank('end_date_time'), 'empty end_date_time') }},
    {{ wag_reject_if('not ' ~ wag_is_blank('end_date_time') ~ ' and ' ~ wag_parse_utc_timestamp('end_date_time', false) ~ ' is null',
                     'end_date_time is not a timestamp with zone (YYYY-MM-DDTHH:MM:SSZ)', 'end_date_time') }},
    {{ wag_check_plausible('utc_timestamp', 'end_date_time', 'end_date_time') }},
    {%- for col in ['perceived_exertion', 'duration_min'] %}
    {{ wag_reject_if('not ' ~ wag_is_blank(col) ~ ' and ' ~ wag_parse_number(col) ~ ' is null',
                     col ~ ' is not a number', col) }},
    {{ wag_check_nonnegative(col, col) }}{{ "," if not loop.last }}
    {%- endfor %}
  {{ wag_nonnull_rows_close() }} as rejection
from (
    select *, {{ wag_file_row_number() }} as n,
           left(concat_ws(',', end_date_time, activity_names, perceived_exertion, duration_min), 500) as raw
    from {{ wag_read_csv(srpe_glob, "all_varchar = true, union_by_name = true, delim = ','") }}
)
{%- endset %}{% do parts.append(part) %}
{%- endif %}

{%- for glob, items in globem_surveys if wag_files_exist(glob) %}
{%- set survey_opts = "all_varchar = true, union_by_name = true, delim = ',', quote = '\"', escape = '\"'" -%}
{%- set header = wag_csv_header(glob, survey_opts) -%}
{%- set present = [] -%}{%- for i in items if i in header -%}{%- do present.append(i) -%}{%- endfor -%}
{%- if present %}
{%- set part -%}
select 'globem' as dataset, filename, 'line ' || (n + 1) || ' (pid ' || coalesce(pid, '') || ', ' || item || ')' as locator,
       raw, {{ wag_nonnull_rows_open() }}
    {{ wag_reject_if(wag_parse_date(wag_q('date'), false) ~ ' is null',
                     'date is not a date (YYYY-MM-DD)', wag_q('date')) }},
    {{ wag_check_plausible('date', wag_q('date'), 'date') }},
    {{ wag_reject_if('not ' ~ wag_is_blank('raw_value') ~ ' and ' ~ wag_parse_number('raw_value') ~ ' is null',
                     'survey answer is not a number', 'raw_value') }}
  {{ wag_nonnull_rows_close() }} as rejection
from (
    select filename, n, pid, {{ wag_q('date') }}, item, raw_value,
           left('pid=' || coalesce(pid, '') || ', date=' || coalesce({{ wag_q('date') }}, '') || ', ' || item || '=' || raw_value, 500) as raw
    from (
        {{ wag_unpivot("(select filename, pid, " ~ wag_q('date') ~ ", " ~ wag_q_list(present) ~ ", " ~ wag_file_row_number()
                       ~ " as n from " ~ wag_read_csv(glob, survey_opts) ~ ")", present, 'item', 'raw_value') }}
    )
    where not {{ wag_is_blank('raw_value') }}
)
{%- endset %}{% do parts.append(part) %}
{%- endif %}
{%- endfor %}

{#- ---- PMData: per-minute steps / distance, daily activity minutes, heart-rate zones, exercise ---- -#}
{#- …and the same files of a person's Takeout export (issue 28), one per period, month-first -#}
{%- set json_days = [('pmdata', wag_source_glob('pmdata_raw', 'fitbit_steps'), 'timestamp', 'YYYY-MM-DD HH:MM:SS'),
                     ('pmdata', wag_source_glob('pmdata_raw', 'fitbit_distance'), 'timestamp', 'YYYY-MM-DD HH:MM:SS'),
                     ('pmdata', wag_source_glob('pmdata_raw', 'fitbit_activity_minutes'), 'date', 'YYYY-MM-DD[ HH:MM:SS]'),
                     ('fitbit', 'fitbit/*/**/steps-*.json', 'timestamp', 'MM/DD/YY HH:MM:SS'),
                     ('fitbit', 'fitbit/*/**/distance-*.json', 'timestamp', 'MM/DD/YY HH:MM:SS'),
                     ('fitbit', 'fitbit/*/**/*_minutes-*.json', 'date', 'MM/DD/YY HH:MM:SS')] -%}
{%- for dataset, glob, kind, format in json_days if wag_files_exist(glob) %}
{%- set rel -%}
(select filename, {{ wag_file_row_number() }} as n, left(cast(json as string), 500) as raw_json,
        {{ wag_json_text('json', '$.dateTime') }} as date_time, {{ wag_json_text('json', '$.value') }} as v
 from {{ wag_read_json_objects(glob) }})
{%- endset %}
{%- do parts.append(wag_rejections(dataset, rel,
        "'element ' || n || coalesce(' (dateTime ' || nullif(trim(date_time), '') || ')', '')", 'raw_json',
        [wag_check_day('date_time', 'dateTime', kind, format), wag_check_number('v', 'value')]
        + ([wag_check_nonnegative('v', 'value')] if kind == 'timestamp' else []))) %}
{%- endfor %}

{%- for dataset, zones_glob, date_format in [('pmdata', wag_source_glob('pmdata_raw', 'fitbit_time_in_heart_rate_zones'), 'YYYY-MM-DD[ HH:MM:SS]'),
                                            ('fitbit', 'fitbit/*/**/time_in_heart_rate_zones-*.json', 'MM/DD/YY HH:MM:SS')]
      if wag_files_exist(zones_glob) %}
{%- set rel -%}
(select filename, {{ wag_file_row_number() }} as n, left(cast(json as string), 500) as raw_json,
        {{ wag_json_text('json', '$.dateTime') }} as date_time,
        {{ wag_json_value('json', '$.value.valuesInZones') }} as zones
 from {{ wag_read_json_objects(zones_glob) }})
{%- endset %}
{%- set bad_zone -%}
{{ wag_json_values_any('zones', 'not ' ~ wag_is_blank('ITEM') ~ ' and ' ~ wag_parse_number('ITEM') ~ ' is null') }}
{%- endset %}
{%- do parts.append(wag_rejections(dataset, rel,
        "'element ' || n || coalesce(' (dateTime ' || nullif(trim(date_time), '') || ')', '')", 'raw_json',
        [wag_check_day('date_time', 'dateTime', 'date', date_format),
         wag_reject_if(bad_zone, 'value.valuesInZones has a zone that is not a number', 'zones')])) %}
{%- endfor %}

{%- for dataset, exercise_glob, date_format in [('pmdata', wag_source_glob('pmdata_raw', 'fitbit_exercise'), 'YYYY-MM-DD[ T]HH:MM:SS'),
                                               ('fitbit', 'fitbit/*/**/exercise-*.json', 'MM/DD/YY HH:MM:SS')]
      if wag_files_exist(exercise_glob) %}
{%- set rel -%}
(select filename, {{ wag_file_row_number() }} as n, left(cast(json as string), 500) as raw_json,
        {{ wag_json_text('json', '$.logId') }} as log_id, {{ wag_json_text('json', '$.startTime') }} as start_time,
        {{ wag_json_text('json', '$.duration') }} as duration, {{ wag_json_text('json', '$.vo2Max.vo2Max') }} as vo2_max
 from {{ wag_read_json_objects(exercise_glob) }})
{%- endset %}
{%- do parts.append(wag_rejections(dataset, rel,
        "'element ' || n || coalesce(' (logId ' || nullif(trim(log_id), '') || ')', '')", 'raw_json',
        [wag_check_day('start_time', 'startTime', 'timestamp', date_format),
         wag_check_number('duration', 'duration'), wag_check_number('vo2_max', 'vo2Max.vo2Max')])) %}
{%- endfor %}

{#- A Fitbit Takeout zip (issue 28, stg_fitbit__takeout_files): one that could not be read at all, and the
    member names skipped because they would leave the extraction folder (DuckDB only: on Spark that
    model is disabled and a zip is not read, dbt_project.yml) -#}
{%- if target.type != 'spark' and wag_files_exist('fitbit/*/**/*.zip') %}
{%- set part -%}
select 'fitbit' as dataset, {{ wag_sql_string(wag_file_root() ~ '/') }} || file as filename, 'the zip' as locator,
       left(coalesce(note, ''), 500) as raw, {{ wag_nonnull_rows_open() }}
    {{ wag_reject_if("status = 'failed'", 'the zip could not be read (nothing in it was read)', 'note') }},
    {{ wag_reject_if('members_skipped_unsafe > 0', 'member names that would leave the extraction folder (absolute, .., backslash) skipped',
                     'members_skipped_unsafe') }}
  {{ wag_nonnull_rows_close() }} as rejection
from {{ ref('stg_fitbit__takeout_files') }}
{%- endset %}{% do parts.append(part) %}
{%- endif %}

{%- set reporting_glob = wag_source_glob('pmdata_raw', 'googledocs_reporting') -%}
{%- if wag_files_exist(reporting_glob) %}
{%- set rel -%}
(select *, {{ wag_file_row_number() }} as n
 from {{ wag_read_csv(reporting_glob, "all_varchar = true, union_by_name = true, delim = ','") }})
{%- endset %}
{%- do parts.append(wag_rejections('pmdata', rel, "'line ' || (n + 1)",
        wag_fields_text(['date', 'timestamp', 'meals', 'weight', 'glasses_of_fluid', 'alcohol_consumed']),
        [wag_check_day(wag_q('date'), 'date', 'dmy_date', 'DD/MM/YYYY'),
         wag_check_day(wag_q('timestamp'), 'timestamp', 'dmy_timestamp', 'DD/MM/YYYY HH:MM:SS', required=false)])) %}
{%- endif %}

{%- set injury_glob = wag_source_glob('pmdata_raw', 'pmsys_injury') -%}
{%- if wag_files_exist(injury_glob) %}
{%- set rel -%}
(select *, {{ wag_file_row_number() }} as n
 from {{ wag_read_csv(injury_glob, "all_varchar = true, union_by_name = true, delim = ','") }})
{%- endset %}
{%- do parts.append(wag_rejections('pmdata', rel, "'line ' || (n + 1)", wag_fields_text(['effective_time_frame', 'injuries']),
        [wag_check_day('effective_time_frame', 'effective_time_frame', 'utc_timestamp', 'YYYY-MM-DDTHH:MM:SSZ')])) %}
{%- endif %}

{#- ---- LifeSnaps: the daily Fitbit + SEMA table (stg_lifesnaps__daily, __wear_time), scored surveys ---- -#}
{%- set daily_csv = wag_source_glob('lifesnaps_raw', 'daily_fitbit_sema_df_unprocessed') -%}
{%- if wag_files_exist(daily_csv) %}
{#- the numeric columns the two models read (bmi is read as text when it is not a number: '<19') -#}
{%- set daily_numbers = ['sleep_duration', 'minutesAsleep', 'minutesAwake', 'minutesToFallAsleep', 'minutesAfterWakeup',
    'sleep_efficiency', 'steps', 'distance', 'calories', 'lightly_active_minutes', 'moderately_active_minutes',
    'very_active_minutes', 'sedentary_minutes', 'resting_hr', 'rmssd', 'spo2', 'nightly_temperature',
    'daily_temperature_variation', 'full_sleep_breathing_rate', 'filteredDemographicVO2Max', 'stress_score', 'bpm',
    'step_goal', 'ALERT', 'HAPPY', 'NEUTRAL', 'RESTED/RELAXED', 'SAD', 'TENSE/ANXIOUS', 'TIRED',
    'minutes_below_default_zone_1', 'minutes_in_default_zone_1', 'minutes_in_default_zone_2',
    'minutes_in_default_zone_3'] -%}
{%- set rel -%}
(select *, {{ wag_file_row_number() }} as n
 from {{ wag_read_csv(daily_csv, "all_varchar = true, delim = ',', quote = '\"'") }})
{%- endset %}
{%- set checks = [wag_reject_if(wag_is_blank('id'), 'empty id'),
                  wag_check_day(wag_q('date'), 'date', 'date', 'YYYY-MM-DD')] -%}
{%- for c in daily_numbers %}{% do checks.append(wag_check_number(wag_q(c ~ ''), c)) %}{% endfor -%}
{%- do parts.append(wag_rejections('lifesnaps', rel,
        "'line ' || (n + 1) || coalesce(' (id ' || nullif(trim(id), '') || ')', '')",
        wag_fields_text(['id', 'date'] + daily_numbers), checks)) %}
{%- endif %}

{%- for name, numbers in [('panas', ['positive_affect_score', 'negative_affect_score']), ('stai', ['stai_stress']),
                          ('personality', ['extraversion', 'agreeableness', 'conscientiousness', 'stability', 'intellect'])]
    if wag_files_exist(wag_source_glob('lifesnaps_raw', name)) %}
{%- set rel -%}
(select *, {{ wag_file_row_number() }} as n
 from {{ wag_read_csv(wag_source_glob('lifesnaps_raw', name), "all_varchar = true, delim = ',', quote = '\"'") }})
{%- endset %}
{%- set checks = [wag_reject_if(wag_is_blank('user_id'), 'empty user_id'),
                  wag_check_day('submitdate', 'submitdate', 'date', 'YYYY-MM-DD')] -%}
{%- for c in numbers %}{% do checks.append(wag_check_number(c, c)) %}{% endfor -%}
{%- do parts.append(wag_rejections('lifesnaps', rel,
        "'line ' || (n + 1) || coalesce(' (user_id ' || nullif(trim(user_id), '') || ')', '')",
        wag_fields_text(['user_id', 'submitdate'] + numbers), checks)) %}
{%- endfor %}

{#- ---- IFH Affect: Oura sleep.csv and activity.csv ('null' is Oura's "no value", not a rejection) ---- -#}
{%- set ifh_files = [(wag_source_glob('ifh_affect_raw', 'oura_sleep'), ['duration', 'total', 'awake', 'light', 'rem', 'deep',
                        'onset_latency', 'midpoint_time', 'efficiency', 'score', 'hr_lowest', 'hr_average', 'rmssd',
                        'breath_average', 'temperature_delta', 'bedtime_start_midnight_delta',
                        'bedtime_end_midnight_delta']),
                     (wag_source_glob('ifh_affect_raw', 'oura_activity'), ['steps', 'cal_total', 'daily_movement', 'low', 'medium',
                        'high', 'inactive', 'rest', 'non_wear'])] -%}
{%- for glob, numbers in ifh_files if wag_files_exist(glob) %}
{%- set rel -%}
(select *, {{ wag_file_row_number() }} as n
 from {{ wag_read_csv(glob, "all_varchar = true, union_by_name = true, delim = ',', quote = '\"'") }})
{%- endset %}
{%- set checks = [wag_check_day(wag_q('date'), 'date', 'date', 'YYYY-MM-DD')] -%}
{%- for c in numbers %}{% do checks.append(wag_check_number(wag_q(c ~ ''), c, missing_words=['null'])) %}{% endfor -%}
{%- do parts.append(wag_rejections('ifh_affect', rel,
        "'line ' || (n + 1) || coalesce(' (date ' || nullif(trim(" ~ wag_q('date') ~ "), '') || ')', '')",
        wag_fields_text(['date'] + numbers), checks)) %}
{%- endfor %}

{#- ---- GLOBEM feature files: the allday columns of globem_feature_files (macros/globem.sql) ---- -#}
{%- for sensor, spec in globem_feature_files().items() if wag_files_exist(wag_source_glob('globem_raw', sensor)) %}
{%- set columns = [] -%}
{%- for f in spec.features %}{% do columns.append(spec.prefix ~ f ~ ':allday') %}{% endfor -%}
{%- set rel -%}
(select filename, pid, {{ wag_q('date') }}, {% for c in columns %}{{ wag_q(c) }}, {% endfor %}{{ wag_file_row_number() }} as n
 from {{ wag_read_csv(wag_source_glob('globem_raw', sensor),
                      "all_varchar = true, union_by_name = true, delim = ',', quote = '\"', escape = '\"'") }})
{%- endset %}
{%- set checks = [wag_check_day(wag_q('date'), 'date', 'date', 'YYYY-MM-DD')] -%}
{%- for c in columns %}{% do checks.append(wag_check_number(wag_q(c ~ ''), c)) %}{% endfor -%}
{%- do parts.append(wag_rejections('globem', rel,
        "'line ' || (n + 1) || ' (pid ' || coalesce(pid, '') || ')'",
        wag_fields_text(['pid', 'date'] + columns), checks)) %}
{%- endfor %}

{#- Apple Health (issue 28): records read from the streamed Parquet parts (stg_apple_health__records);
    the locator is the Record's line in export.xml. A mapped quantity whose value is not a number or is
    a negative amount, and a mapped or sleep record without a readable startDate/endDate, are listed. -#}
{#- the refs stay parsed (depends_on) whatever the data folder holds; the block is built only when an
    Apple export is there, so a build of selected models without the Apple ones still runs. DuckDB only:
    on Spark the Apple models and stg_fitbit__takeout_files are disabled (dbt_project.yml), so neither
    the refs nor the block are rendered there. -#}
{%- if target.type != 'spark' %}
-- depends_on: {{ ref('stg_apple_health__records') }}, {{ ref('apple_health_types') }}
-- depends_on: {{ ref('stg_fitbit__takeout_files') }}
{%- endif %}
{%- if target.type != 'spark' and wag_files_exist('apple_health/**') %}
{%- set apple_rel -%}
(select r.file as filename, r.line, r.record_type, r.source_name, r.unit, r.value_text, r.start_text, r.end_text,
        r.value, r.start_local, r.end_local, t.aggregation, t.record_type is not null as is_mapped,
        r.record_type = 'HKCategoryTypeIdentifierSleepAnalysis' as is_sleep
 from {{ ref('stg_apple_health__records') }} as r
 left join {{ ref('apple_health_types') }} as t on t.record_type = r.record_type and t.unit = r.unit)
{%- endset %}
{%- do parts.append(
"select 'apple_health' as dataset, filename, 'line ' || line || ' (' || coalesce(record_type, '?') || ')' as locator, "
~ "left(concat_ws(', ', 'type=' || record_type, 'sourceName=' || source_name, 'unit=' || unit, 'value=' || value_text, "
~ "'startDate=' || start_text, 'endDate=' || end_text), 500) as raw, " ~ wag_nonnull_rows_open() ~ "
    "
~ wag_reject_if('is_mapped and value is null', 'value is not a number', 'value_text') ~ ",
    "
~ wag_reject_if("is_mapped and aggregation = 'sum' and value < 0", 'value is negative (an amount cannot be)', 'value_text') ~ ",
    "
~ wag_reject_if('(is_mapped or is_sleep) and start_local is null', 'startDate is not a (plausible) timestamp (YYYY-MM-DD HH:MM:SS +HHMM)', 'start_text') ~ ",
    "
~ wag_reject_if('is_sleep and start_local is not null and end_local is null', 'endDate is not a (plausible) timestamp (YYYY-MM-DD HH:MM:SS +HHMM)', 'end_text')
~ "
  " ~ wag_nonnull_rows_close() ~ " as rejection
from " ~ apple_rel ~ " as apple") %}
{%- endif %}

{#- A person's Oura export (issue 28): per entity file (JSON or CSV), an object whose day / bedtime_end is
    not a (plausible) date or whose read numeric field is not a number (macros/oura.sql) -#}
{%- for part in oura_rejections() %}{% do parts.append(part) %}{% endfor %}

with rejected as (
    {%- if parts %}
    {{ parts | join('\n    union all\n') }}
    {%- else %}
    select cast(null as string) as dataset, cast(null as string) as filename, cast(null as string) as locator,
           cast(null as string) as raw,
           {{ wag_struct([('reason', 'cast(null as string)'), ('bad_value', 'cast(null as string)')]) }} as rejection
    where false
    {%- endif %}
)

select
    cast(dataset as string) as dataset,
    cast({{ wag_path_slashes('filename') }} as string) as full_path,
    -- a member copied out of a Fitbit Takeout zip: fitbit/<person>/<zip name>/<member> (wag_extra_roots)
    {%- set takeout_cache = wag_sql_string(wag_extra_roots('fitbit/')[0] ~ '/') %}
    cast(case when substr({{ wag_path_slashes('filename') }}, 1, length({{ takeout_cache }})) = {{ takeout_cache }}
              then substr({{ wag_path_slashes('filename') }}, length({{ takeout_cache }}) + 1)
              else substr({{ wag_path_slashes('filename') }}, length({{ wag_sql_string(wag_file_root()) }}) + 2) end as string) as file,
    cast(locator as string) as locator,
    cast(raw as string) as raw_text,
    cast(rejection.reason as string) as reason,
    cast(rejection.bad_value as string) as bad_value
from rejected
where rejection is not null
