{#-
  A person's Oura export in the staging contract (issue 28; DESIGN.md §2): dataset 'oura',
  subject_id 'oura:<person>', day, raw_field, value (raw unit), value_text NULL. raw_field_map_oura maps
  the raw fields to catalog metrics (wag_staging_models lists this model beside the staging models).

  Input : int_oura__sleep_main_chosen (the main sleep per wake-up day) and the four daily documents
          stg_oura__daily_sleep, stg_oura__daily_activity, stg_oura__daily_readiness, stg_oura__daily_spo2.
  Rules
  * sleep.<v2 field>: the main sleep's values; sleep.bedtime_start / sleep.bedtime_end = seconds from
    local midnight of the wake-up day (int_oura__sleep_main_chosen).
  * Daily documents: day = Oura's `day` (daily_activity: the activity day 04:00-03:59 local, labelled
    by its start date, as IFH). Objects of type 'deleted' are left out. Should a day repeat (an export
    holding both the JSON and the CSV, or a re-sent document), the latest `timestamp` is kept (then the
    first file/locator in name order), for daily_activity the object with most worn time first.
  * 0 = no reading for daily_sleep.score, daily_readiness.score, daily_spo2.spo2_percentage and
    daily_activity.total_calories (as IFH).
  * Not-worn day (DESIGN.md §2): a daily_activity whose worn time (resting + sedentary + low + medium
    + high seconds) is 0 gives no activity rows, only daily_activity.non_wear_time. Partly worn days are
    kept here; int_wear_days applies min_wear_hours to the worn time.
  * daily_activity.active_minutes = low + medium + high activity seconds (the seed converts to minutes).
  * daily_readiness.score (Oura's 0-100 readiness score) and daily_activity.non_wear_time are emitted
    but not mapped: the catalog's `readiness` is a self-rated 0-10 report, not a device score.
-#}
with main_sleep as (
    select * from {{ ref('int_oura__sleep_main_chosen') }}
),

daily_sleep as (
    select subject_id, day, nullif(score, 0) as score
    from {{ ref('stg_oura__daily_sleep') }}
    where day is not null and not is_deleted
    qualify row_number() over (partition by subject_id, day order by recorded_at desc nulls last, filename, locator) = 1
),

activity_typed as (
    select
        *,
        coalesce(resting_time, 0) + coalesce(sedentary_time, 0) + coalesce(low_activity_time, 0)
            + coalesce(medium_activity_time, 0) + coalesce(high_activity_time, 0) as worn_seconds
    from {{ ref('stg_oura__daily_activity') }}
    where day is not null and not is_deleted
),

daily_activity as (
    select *
    from activity_typed
    qualify row_number() over (
        partition by subject_id, day order by worn_seconds desc, recorded_at desc nulls last, filename, locator) = 1
),

daily_readiness as (
    select subject_id, day, nullif(score, 0) as score, temperature_deviation
    from {{ ref('stg_oura__daily_readiness') }}
    where day is not null and not is_deleted
    qualify row_number() over (partition by subject_id, day order by recorded_at desc nulls last, filename, locator) = 1
),

daily_spo2 as (
    select subject_id, day, nullif(spo2_average, 0) as spo2_average
    from {{ ref('stg_oura__daily_spo2') }}
    where day is not null and not is_deleted
    qualify row_number() over (partition by subject_id, day order by recorded_at desc nulls last, filename, locator) = 1
),

long as (
    {%- set sleep_fields = [('time_in_bed', 'time_in_bed'), ('total_sleep_duration', 'total_sleep_duration'),
                            ('awake_time', 'awake_time'), ('light_sleep_duration', 'light_sleep_duration'),
                            ('deep_sleep_duration', 'deep_sleep_duration'), ('rem_sleep_duration', 'rem_sleep_duration'),
                            ('latency', 'latency'), ('efficiency', 'efficiency'),
                            ('lowest_heart_rate', 'lowest_heart_rate'), ('average_heart_rate', 'average_heart_rate'),
                            ('average_hrv', 'average_hrv'), ('average_breath', 'average_breath'),
                            ('bedtime_start', 'bedtime_start_seconds'), ('bedtime_end', 'bedtime_end_seconds')] %}
    {%- for name, col in sleep_fields %}
    select subject_id, day, 'sleep.{{ name }}' as raw_field, {{ col }} as value from main_sleep
    union all
    {%- endfor %}
    select subject_id, day, 'daily_sleep.score', score from daily_sleep
    union all
    {%- set activity_fields = ['steps', 'equivalent_walking_distance', 'total_calories', 'low_activity_time',
                               'medium_activity_time', 'high_activity_time', 'sedentary_time', 'resting_time'] %}
    {%- for f in activity_fields %}
    select subject_id, day, 'daily_activity.{{ f }}',
           {{ 'nullif(total_calories, 0)' if f == 'total_calories' else f }}
    from daily_activity where worn_seconds > 0
    union all
    {%- endfor %}
    select subject_id, day, 'daily_activity.active_minutes', low_activity_time + medium_activity_time + high_activity_time
    from daily_activity where worn_seconds > 0
    union all
    select subject_id, day, 'daily_activity.non_wear_time', non_wear_time from daily_activity
    union all
    select subject_id, day, 'daily_readiness.score', score from daily_readiness
    union all
    select subject_id, day, 'daily_readiness.temperature_deviation', temperature_deviation from daily_readiness
    union all
    select subject_id, day, 'daily_spo2.spo2_percentage', spo2_average from daily_spo2
)

{{ wag_contract_rows('oura', 'long') }}
