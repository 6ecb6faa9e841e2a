{% macro pmdata_minutes_to_daily(minute_glob, raw_field, dataset='pmdata',
                                 hr_glob='pmdata/*/fitbit/time_in_heart_rate_zones.json') -%}
{#-
  PMData per-minute Fitbit series (steps.json, distance.json) -> one staging row per subject and local
  day with the day's sum (DESIGN.md §2; FORMATS.md §1.2, §0.5, §0.6). Shared by stg_pmdata__steps and
  stg_pmdata__distance, whose headers document the rules:
  * repeated timestamps collapse to one minute (their maximum) before summing;
  * a day without minute rows has no row;
  * a day summing to 0 with no heart-rate-zone minutes that day is a no-wear day -> no row.
  dateTime and value are parsed by the macros of macros/quarantine.sql; a minute whose dateTime is
  not a (plausible) timestamp or whose value is not a number, or is negative, is listed in raw_rejected
  and left out of the day's sum.
  dataset 'fitbit' (issue 28): the same logic over a person's Fitbit account export (Takeout), one file
  per period (`steps-2024-03-01.json`), person = the folder under fitbit/ (fitbit_person), timestamps
  month-first 'MM/DD/YY HH:MM:SS' (read by wag_parse_timestamp).
-#}
{%- if wag_files_exist(minute_glob) %}
with raw as (
    select
        {{ fitbit_person_expr(dataset) }} as pid,
        {{ wag_parse_timestamp('dateTime') }} as minute_ts,
        {{ wag_parse_number('value') }} as amount
    from {{ wag_read_json(minute_glob, "columns = {dateTime: 'VARCHAR', value: 'VARCHAR'}") }}
),

minutes as (
    select pid, minute_ts, max(amount) as amount
    from raw
    -- a negative minute is quarantined (raw_rejected: 'value is negative'), not summed: the day keeps
    -- its other minutes (issue 24)
    where pid <> '' and minute_ts is not null and amount >= 0
    group by pid, minute_ts
),

per_day as (
    select pid, cast(minute_ts as date) as day, sum(amount) as value
    from minutes
    group by pid, cast(minute_ts as date)
),

hr_days as (
{%- if wag_files_exist(hr_glob) %}
    select pid, day
    from (
        select
            {{ fitbit_person_expr(dataset) }} as pid,
            {{ pmdata_zone_day('dateTime') }} as day,
            {{ pmdata_zone_minutes(wag_q('value')) }} as hr_minutes
        from {{ wag_read_json(hr_glob, "columns = {dateTime: 'VARCHAR', value: 'JSON'}") }}
    ) as zones
    where day is not null
    group by pid, day
    having max(hr_minutes) > 0
{%- else %}
    select cast(null as string) as pid, cast(null as date) as day where false
{%- endif %}
)

select
    cast({{ wag_sql_string(dataset) }} as string) as dataset,
    cast({{ wag_sql_string(dataset ~ ':') }} || d.pid as string) as subject_id,
    cast(d.day as date) as day,
    cast('{{ raw_field }}' as string) as raw_field,
    cast(d.value as double) as value,
    cast(null as string) as value_text
from per_day as d
left join hr_days as h
    on h.pid = d.pid and h.day = d.day
where d.value > 0 or h.pid is not null
{%- else %}
{{ wag_empty_raw() }}
{%- endif %}
{%- endmacro %}


{% macro pmdata_zone_day(date_expr) -%}
  {#- The day of a time_in_heart_rate_zones.json element (dateTime 'YYYY-MM-DD 00:00:00'); shared by
      stg_pmdata__wear_time, pmdata_minutes_to_daily and raw_rejected. -#}
  {{ wag_parse_date(date_expr) }}
{%- endmacro %}


{% macro pmdata_zone_minutes(value_expr) -%}
  {#- Minutes with a heart rate of a time_in_heart_rate_zones.json element: the sum of
      value.valuesInZones.* (a zone that is not a number counts as absent; raw_rejected lists it). -#}
  {{ wag_json_values_sum(value_expr, '$.valuesInZones', wag_parse_number('ITEM')) }}
{%- endmacro %}


{% macro fitbit_person_expr(dataset='pmdata') -%}
  {#- The participant of a Fitbit JSON file from its path: PMData `pmdata/<pid>/fitbit/<file>`, or a
      person's Takeout export `fitbit/<person>/…/<file>` (any depth: `Takeout/Fitbit/Global Export
      Data/` or that folder itself; issue 28): the first folder under data_dir/fitbit/, or under the
      cache's fitbit/ for the members copied out of a Takeout zip (wag_extra_roots). -#}
  {%- if dataset == 'fitbit' -%}
  {#- a file copied out of a Takeout zip (wag_extra_roots) lies under the cache's fitbit/<person>/ -#}
  {%- set path = wag_path_slashes('filename') -%}
  {%- set cache = wag_sql_string(wag_extra_roots('fitbit/')[0] ~ '/fitbit/') -%}
  split_part(case when substr({{ path }}, 1, length({{ cache }})) = {{ cache }}
                  then substr({{ path }}, length({{ cache }}) + 1)
                  else substr({{ path }}, length({{ wag_sql_string(wag_file_root() ~ '/fitbit/') }}) + 1) end, '/', 1)
  {%- else -%}
  regexp_extract({{ wag_path_slashes('filename') }}, '/([^/]+)/fitbit/[^/]+$', 1)
  {%- endif -%}
{%- endmacro %}


{% macro pmdata_wear_time(dataset='pmdata', hr_glob='pmdata/*/fitbit/time_in_heart_rate_zones.json') -%}
{#- The body of stg_pmdata__wear_time (its header has the rules), shared with stg_fitbit__wear_time
    (a person's Takeout export, one time_in_heart_rate_zones-YYYY-MM-DD.json per period; issue 28). -#}
{%- if wag_files_exist(hr_glob) %}
with raw as (
    select
        {{ fitbit_person_expr(dataset) }} as pid,
        cast({{ pmdata_zone_day('dateTime') }} as date) as day,
        {{ pmdata_zone_minutes(wag_q('value')) }} as zone_minutes
    from {{ wag_read_json(hr_glob, "columns = {dateTime: 'VARCHAR', value: 'JSON'}") }}
)

select
    cast({{ wag_sql_string(dataset) }} as string)  as dataset,
    cast({{ wag_sql_string(dataset ~ ':') }} || pid as string) as subject_id,
    day,
    cast(least(max(zone_minutes), 1440) as double)  as wear_minutes,
    cast('minutes with heart rate (time_in_heart_rate_zones.json)' as string) as evidence
from raw
where pid <> '' and day is not null and zone_minutes is not null
group by pid, day
{%- else %}
select cast(null as string) as dataset, cast(null as string) as subject_id, cast(null as date) as day,
       cast(null as double) as wear_minutes, cast(null as string) as evidence
where false
{%- endif %}
{%- endmacro %}


{% macro pmdata_sleep_logs(dataset='pmdata', glob='pmdata/*/fitbit/sleep.json') -%}
{#- The body of stg_pmdata__sleep (its header has the rules), shared with stg_fitbit__sleep (a person's
    Takeout export: the same objects, one file per period, month-first MM/DD/YY timestamps; issue 28). -#}
{%- if wag_files_exist(glob) %}
with raw as (
    select
        {{ fitbit_person_expr(dataset) }} as pid,
        logId,
        dateOfSleep,
        startTime,
        endTime,
        minutesToFallAsleep,
        minutesAsleep,
        minutesAwake,
        minutesAfterWakeup,
        timeInBed,
        efficiency,
        levels,
        mainSleep,
        isMainSleep
    from {{ wag_read_json(glob,
        "columns = {logId: 'VARCHAR', dateOfSleep: 'VARCHAR', startTime: 'VARCHAR', endTime: 'VARCHAR',
                    minutesToFallAsleep: 'VARCHAR', minutesAsleep: 'VARCHAR', minutesAwake: 'VARCHAR',
                    minutesAfterWakeup: 'VARCHAR', timeInBed: 'VARCHAR', efficiency: 'VARCHAR',
                    levels: 'JSON', mainSleep: 'VARCHAR', isMainSleep: 'VARCHAR'}") }}
),

typed as (
    select
        pid,
        trim(logId) as log_id,
        -- startTime uses a space, endTime a 'T' and '.000': both read by wag_parse_timestamp
        {{ wag_parse_timestamp('startTime', false) }} as start_ts,
        {{ wag_parse_timestamp('endTime', false) }} as end_ts,
        {{ wag_parse_timestamp('dateOfSleep', false) }} as date_of_sleep,
        {{ wag_parse_number('minutesToFallAsleep') }} as minutes_to_fall_asleep,
        {{ wag_parse_number('minutesAsleep') }} as minutes_asleep,
        {{ wag_parse_number('minutesAwake') }} as minutes_awake,
        {{ wag_parse_number('minutesAfterWakeup') }} as minutes_after_wakeup,
        {{ wag_parse_number('timeInBed') }} as time_in_bed,
        {{ wag_parse_number('efficiency') }} as efficiency,
        try_cast({{ wag_json_text('levels', '$.summary.deep.minutes') }} as double) as deep_minutes,
        try_cast({{ wag_json_text('levels', '$.summary.light.minutes') }} as double) as light_minutes,
        try_cast({{ wag_json_text('levels', '$.summary.rem.minutes') }} as double) as rem_minutes,
        levels,
        coalesce({{ wag_parse_flag('mainSleep') }}, {{ wag_parse_flag('isMainSleep') }}, false) as is_main
    from raw
    where pid <> '' and logId is not null
),

deduped as (
    select *
    from typed
    qualify row_number() over (partition by pid, log_id order by end_ts desc nulls last) = 1
),

main_sleep as (
    select
        *,
        -- an implausible day (issue 24, wag_plausible_days) is no day: raw_rejected lists the log
        cast({{ wag_plausible('coalesce(cast(date_of_sleep as date), cast(end_ts as date))') }} as date) as day
    from deduped
    where is_main
),

one_per_day as (
    select *
    from main_sleep
    where day is not null
    qualify row_number() over (
        partition by pid, day
        order by time_in_bed desc nulls last, try_cast(log_id as decimal(38, 0)) desc nulls last, log_id desc
    ) = 1
),

segments as (
    -- hypnogram segments of the kept logs: levels.data (stage of every 30-s aligned segment) and
    -- levels.shortData (short wakes overlaid on data)
    select pid, day, log_id, start_ts, 'data' as source,
           {{ wag_json_struct_rows('levels', '$.data', {'dateTime': 'VARCHAR', 'level': 'VARCHAR', 'seconds': 'DOUBLE'}) }} as seg
    from one_per_day
    union all
    select pid, day, log_id, start_ts, 'short' as source,
           {{ wag_json_struct_rows('levels', '$.shortData', {'dateTime': 'VARCHAR', 'level': 'VARCHAR', 'seconds': 'DOUBLE'}) }} as seg
    from one_per_day
),

epochs as (
    -- one row per 30-s epoch of a segment (offset_s = 0, 30, ... below its length)
    select
        pid, day, log_id, start_ts, source, level,
        {{ wag_add_seconds('segment_ts', 'offset_s') }} as epoch_ts
    from (
        select
            pid, day, log_id, start_ts, source,
            lower(seg.level) as level,
            {{ wag_try_strptime("replace(substr(seg.dateTime, 1, 19), 'T', ' ')", ['%Y-%m-%d %H:%M:%S']) }} as segment_ts,
            {{ wag_range_rows(0, 'cast(round(seg.seconds) as bigint)', 30) }} as offset_s
        from segments
        where seg.seconds > 0
    ) as segment_epochs
),

asleep_epochs as (
    select pid, day, log_id, start_ts, epoch_ts
    from epochs
    where epoch_ts is not null
    group by pid, day, log_id, start_ts, epoch_ts
    having bool_or(source = 'data' and level in ('light', 'deep', 'rem', 'asleep'))
       and not bool_or(source = 'short')
),

numbered_epochs as (
    select
        *,
        row_number() over (partition by pid, log_id order by epoch_ts) as k,
        count(*) over (partition by pid, log_id) as n
    from asleep_epochs
),

asleep_midpoint as (
    -- the instant at which n/2 epochs of 30 s have been slept: inside epoch k = ceil(n/2)
    select
        pid, day,
        ({{ wag_seconds_between('start_ts', 'epoch_ts') }} + 30.0 * (n / 2.0 - (k - 1))) / 60.0 as midpoint_minutes
    from numbered_epochs
    where k = cast(ceil(n / 2.0) as bigint)
),

long as (
    select pid, day, 'sleep.timeInBed' as raw_field, time_in_bed as value from one_per_day
    union all
    select pid, day, 'sleep.minutesAsleep', minutes_asleep from one_per_day
    union all
    select pid, day, 'sleep.minutesAwake', minutes_awake from one_per_day
    union all
    select pid, day, 'sleep.efficiency', efficiency from one_per_day
    union all
    select pid, day, 'sleep.minutesToFallAsleep', minutes_to_fall_asleep from one_per_day
    union all
    select pid, day, 'sleep.minutesAfterWakeup', minutes_after_wakeup from one_per_day
    union all
    select pid, day, 'sleep.levels.deep.minutes', deep_minutes from one_per_day
    union all
    select pid, day, 'sleep.levels.light.minutes', light_minutes from one_per_day
    union all
    select pid, day, 'sleep.levels.rem.minutes', rem_minutes from one_per_day
    union all
    select pid, day, 'sleep.startTime',
           {{ wag_seconds_between('cast(day as timestamp)', 'start_ts') }} / 60.0
    from one_per_day
    union all
    select pid, day, 'sleep.endTime',
           {{ wag_seconds_between('cast(day as timestamp)', 'end_ts') }} / 60.0
    from one_per_day
    union all
    select pid, day, 'sleep.levels.asleep_midpoint', midpoint_minutes from asleep_midpoint
)

{{ wag_contract_rows(dataset, 'long', pid_column='pid') }}
{%- else %}
{{ wag_empty_raw() }}
{%- endif %}
{%- endmacro %}


{% macro pmdata_resting_heart_rate(dataset='pmdata', glob='pmdata/*/fitbit/resting_heart_rate.json') -%}
{#- The body of stg_pmdata__resting_heart_rate (its header has the rules), shared with stg_fitbit__resting_heart_rate (a person's
    Takeout export: the same objects, one file per period, month-first MM/DD/YY timestamps; issue 28). -#}
{%- if wag_files_exist(glob) %}
with raw as (
    select
        {{ fitbit_person_expr(dataset) }} as pid,
        {{ wag_parse_date('dateTime') }} as day_ts,
        {{ wag_parse_number(wag_json_text(wag_q('value'), '$.value')) }} as bpm
    from {{ wag_read_json(glob, "columns = {dateTime: 'VARCHAR', value: 'JSON'}") }}
)

select
    cast({{ wag_sql_string(dataset) }} as string) as dataset,
    cast({{ wag_sql_string(dataset ~ ':') }} || pid as string) as subject_id,
    cast(day_ts as date) as day,
    cast('resting_heart_rate.value' as string) as raw_field,
    cast(avg(bpm) as double) as value,
    cast(null as string) as value_text
from raw
where pid <> '' and day_ts is not null and bpm > 0
group by pid, cast(day_ts as date)
{%- else %}
{{ wag_empty_raw() }}
{%- endif %}
{%- endmacro %}


{% macro pmdata_activity_minutes(dataset='pmdata', glob='pmdata/*/fitbit/*_minutes.json') -%}
{#- The body of stg_pmdata__activity_minutes (its header has the rules), shared with stg_fitbit__activity_minutes (a person's
    Takeout export: the same objects, one file per period, month-first MM/DD/YY timestamps; issue 28). -#}
{%- if wag_files_exist(glob) %}
with raw as (
    select
        {{ fitbit_person_expr(dataset) }} as pid,
        regexp_extract({{ wag_path_slashes('filename') }}, '/([a-z_]+)_minutes(-[0-9]{4}-[0-9]{2}-[0-9]{2})?\.json$', 1) as level,
        {{ wag_parse_date('dateTime') }} as day_ts,
        {{ wag_parse_number('value') }} as minutes
    from {{ wag_read_json(glob, "columns = {dateTime: 'VARCHAR', value: 'VARCHAR'}") }}
),

per_day as (
    select
        pid,
        cast(day_ts as date) as day,
        max(case when level = 'sedentary' then minutes end) as sedentary,
        max(case when level = 'lightly_active' then minutes end) as lightly,
        max(case when level = 'moderately_active' then minutes end) as moderately,
        max(case when level = 'very_active' then minutes end) as very
    from raw
    where pid <> '' and day_ts is not null and minutes is not null
    group by pid, cast(day_ts as date)
),

worn as (
    select *
    from per_day
    where not (
        coalesce(sedentary, 0) = 1440
        and coalesce(lightly, 0) + coalesce(moderately, 0) + coalesce(very, 0) = 0
    )
),

long as (
    select pid, day, 'activity.sedentary_minutes' as raw_field, sedentary as value from worn
    union all
    select pid, day, 'activity.lightly_active_minutes', lightly from worn
    union all
    select pid, day, 'activity.moderately_active_minutes', moderately from worn
    union all
    select pid, day, 'activity.very_active_minutes', very from worn
    union all
    select pid, day, 'activity.active_minutes', lightly + moderately + very from worn
)

{{ wag_contract_rows(dataset, 'long', pid_column='pid') }}
{%- else %}
{{ wag_empty_raw() }}
{%- endif %}
{%- endmacro %}


{% macro pmdata_exercise(dataset='pmdata', glob='pmdata/*/fitbit/exercise.json') -%}
{#- The body of stg_pmdata__exercise (its header has the rules), shared with stg_fitbit__exercise (a person's
    Takeout export: the same objects, one file per period, month-first MM/DD/YY timestamps; issue 28). -#}
{%- if wag_files_exist(glob) %}
with raw as (
    select
        {{ fitbit_person_expr(dataset) }} as pid,
        trim(logId) as log_id,
        trim(activityName) as activity_name,
        {{ wag_parse_number('duration') }} as duration_ms,
        {{ wag_parse_timestamp('startTime') }} as start_ts,
        {{ wag_parse_number(wag_json_text('vo2Max', '$.vo2Max')) }} as vo2_max
    from {{ wag_read_json(glob,
        "columns = {logId: 'VARCHAR', activityName: 'VARCHAR', duration: 'VARCHAR', startTime: 'VARCHAR',
                    vo2Max: 'JSON'}") }}
),

bouts as (
    select
        *,
        cast(start_ts as date) as day,
        case
            when duration_ms is null then activity_name
            else activity_name || ' (' || cast(cast(round(duration_ms / 60000.0) as bigint) as string) || ' min)'
        end as label
    from raw
    where pid <> '' and start_ts is not null
    qualify row_number() over (partition by pid, coalesce(log_id, cast(start_ts as string)) order by start_ts) = 1
),

per_day as (
    select
        pid,
        day,
        -- string_agg skips NULLs: the CASE is the filter (one spelling for both engines)
        {{ wag_string_agg("case when label is not null and label <> '' then label end", "'; '", 'start_ts, log_id') }} as activities,
        avg(vo2_max) as vo2_max
    from bouts
    group by pid, day
)

select
    cast({{ wag_sql_string(dataset) }} as string) as dataset,
    cast({{ wag_sql_string(dataset ~ ':') }} || pid as string) as subject_id,
    cast(day as date) as day,
    cast('exercise.activities' as string) as raw_field,
    cast(null as double) as value,
    cast(activities as string) as value_text
from per_day
where activities is not null
union all
select
    {{ wag_sql_string(dataset) }},
    {{ wag_sql_string(dataset ~ ':') }} || pid,
    cast(day as date),
    'exercise.vo2Max',
    cast(vo2_max as double),
    cast(null as string)
from per_day
where vo2_max is not null
{%- else %}
{{ wag_empty_raw() }}
{%- endif %}
{%- endmacro %}
