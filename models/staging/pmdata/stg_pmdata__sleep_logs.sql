{#-
  PMData sleep logs, renamed and cast (DESIGN.md §2; FORMATS.md §1.3, §0.4, §0.6, §0.11).

  Input : pmdata/<pid>/fitbit/sleep.json (source pmdata_raw.fitbit_sleep), one element per Fitbit sleep
          log (API v1.2 shape).
  Output: one row per log element as written (duplicates, naps and all): the participant folder (pid),
          logId, the timestamps, the summary numbers, the stage minutes of levels.summary, the hypnogram
          `levels` (JSON) and the main-sleep flag. No row is dropped here except a log without a
          participant folder or a logId (raw_rejected lists it). The rules that pick one main sleep per
          wake-up day are int_pmdata__main_sleeps_selected; the hypnogram expansion is
          int_pmdata__sleep_epochs_expanded; the staging-contract rows are int_pmdata__sleep_unpivoted.

  Casting
  * Every number is read as text and cast here (quoted and unquoted numbers both work).
  * Timestamps are parsed by wag_parse_timestamp (macros/quarantine.sql: 'T' or space, optional
    '.000' / 'Z'): startTime uses a space, endTime a 'T' and '.000'. A log this project cannot use (no
    logId, no or unreadable flag, no day, a field that is not a number or timestamp) is listed with its
    reason in raw_rejected, which applies the same macros.
  * The main-sleep flag is mainSleep, or isMainSleep as the Fitbit Web API spells it; unreadable = false.
  * Stage minutes (levels.summary.deep/light/rem.minutes) exist for stages logs only (NULL on classic).
-#}
{%- set sleep_glob = wag_source_glob('pmdata_raw', 'fitbit_sleep') -%}
{%- if wag_files_exist(sleep_glob) %}
with source as (
    select
        regexp_extract({{ wag_path_slashes('filename') }}, '/([^/]+)/fitbit/[^/]+$', 1) as pid,
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
    from {{ wag_read_json(sleep_glob,
        "columns = {logId: 'VARCHAR', dateOfSleep: 'VARCHAR', startTime: 'VARCHAR', endTime: 'VARCHAR',
                    minutesToFallAsleep: 'VARCHAR', minutesAsleep: 'VARCHAR', minutesAwake: 'VARCHAR',
                    minutesAfterWakeup: 'VARCHAR', timeInBed: 'VARCHAR', efficiency: 'VARCHAR',
                    levels: 'JSON', mainSleep: 'VARCHAR', isMainSleep: 'VARCHAR'}") }}
),

renamed as (
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
    from source
    where pid <> '' and logId is not null
)

select * from renamed
{%- else %}
-- no sleep.json under the data folder: the same columns, no rows
select
    cast(null as string)    as pid,
    cast(null as string)    as log_id,
    cast(null as timestamp) as start_ts,
    cast(null as timestamp) as end_ts,
    cast(null as timestamp) as date_of_sleep,
    cast(null as double)    as minutes_to_fall_asleep,
    cast(null as double)    as minutes_asleep,
    cast(null as double)    as minutes_awake,
    cast(null as double)    as minutes_after_wakeup,
    cast(null as double)    as time_in_bed,
    cast(null as double)    as efficiency,
    cast(null as double)    as deep_minutes,
    cast(null as double)    as light_minutes,
    cast(null as double)    as rem_minutes,
    cast(null as {{ 'string' if target.type == 'spark' else 'json' }}) as levels,
    cast(null as boolean)   as is_main
where false
{%- endif %}
