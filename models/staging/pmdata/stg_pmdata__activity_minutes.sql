{#-
  PMData daily activity-level minutes -> staging contract (DESIGN.md §2; FORMATS.md §1.2, §0.1, §0.5).

  Input : pmdata/<pid>/fitbit/{sedentary,lightly_active,moderately_active,very_active}_minutes.json,
          one element per day: {"dateTime": "2019-11-01 00:00:00", "value": "245"} (minutes, string).
  Output raw_fields (minutes):
    activity.sedentary_minutes, activity.lightly_active_minutes,
    activity.moderately_active_minutes, activity.very_active_minutes,
    activity.active_minutes = lightly + moderately + very (only when all three exist that day).

  Rules
  * Not-worn days: sedentary = 1440 and lightly + moderately + very = 0 (an absent file counts as 0)
    -> no row for any field that day (the files carry all 152 days, worn or not).
  * Partly worn days: int_wear_days compares the day's minutes with a heart rate
    (stg_pmdata__wear_time) with var min_wear_hours (10 h); below it the activity values are missing
    (DESIGN.md §2 "Non-wear"), listed in metric_values_rejected with the reason.
  * A repeated dateTime within one file collapses to its maximum (none observed).
  * dateTime and value are parsed by the macros of macros/quarantine.sql; an element whose dateTime
    is not a date or whose value is not a number is listed in raw_rejected.
-#}
{%- set minutes_glob = wag_source_glob('pmdata_raw', 'fitbit_activity_minutes') -%}
{%- if wag_files_exist(minutes_glob) %}
with raw as (
    select
        regexp_extract({{ wag_path_slashes('filename') }}, '/([^/]+)/fitbit/[^/]+$', 1) as pid,
        regexp_extract({{ wag_path_slashes('filename') }}, '/([a-z_]+)_minutes\.json$', 1) as level,
        {{ wag_parse_date('dateTime') }} as day_ts,
        {{ wag_parse_number('value') }} as minutes
    from {{ wag_read_json(minutes_glob, "columns = {dateTime: 'VARCHAR', value: 'VARCHAR'}") }}
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

{{ wag_contract_rows('pmdata', 'long', pid_column='pid') }}
{%- else %}
{{ wag_empty_raw() }}
{%- endif %}
