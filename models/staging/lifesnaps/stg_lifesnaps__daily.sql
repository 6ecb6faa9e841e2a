{#-
  LifeSnaps daily Fitbit + SEMA table -> staging contract rows (DESIGN.md §2, FORMATS.md §2.2, §5).

  Input : <data_dir>/lifesnaps/rais_anonymized/csv_rais_anonymized/daily_fitbit_sema_df_unprocessed.csv
          (CRLF, leading unnamed pandas-index column, 63 columns, one row per (id, date), empty = missing,
          numbers written both as `149` and `8833.0`). Read all-VARCHAR, then try_cast: a value that does
          not parse is missing, never an error.
  Output: one row per (subject_id, day, raw_field); value in the RAW unit (the field-map seed
          raw_field_map_lifesnaps converts: sleep_duration ms -> min, stress_score inverted, ...).
  Day   : `date` as written; for the sleep columns it is already the wake-up day (dateOfSleep).

  Missing-value rules (FORMATS.md §0.5, DESIGN.md §2 "a day with no wear is missing, not zero"):
    * not-worn day = sedentary_minutes = 1440 and the three active-minute columns all 0: no activity
      minutes, active_time, calories, steps or distance for that day (calories there are BMR-only fill);
    * partly worn day = fewer than var min_wear_hours (10 h) of heart-rate zone minutes
      (stg_lifesnaps__wear_time): int_wear_days makes its activity values missing (DESIGN.md §2);
    * 0 = missing for steps, distance, rmssd, full_sleep_breathing_rate, stress_score (Fitbit's score is
      1..100; 0 comes with all sub-scores 0), spo2, nightly_temperature, bpm, resting_hr, VO2 max,
      sleep_duration, minutesAsleep, sleep_efficiency;
    * calories < 500 kcal are partial-day stubs (0.79, 0.90 on a participant's last day); a whole-day
      Fitbit total includes BMR and is never that low;
    * minutesAwake, minutesAfterWakeup, minutesToFallAsleep, active-minute columns: 0 is a real 0.
      minutesToFallAsleep is always 0 in LifeSnaps (Fitbit's field); kept as-is, the seed note says so.
  Dropped on purpose:
    * scl_avg: the authors' notebook dates the EDA rows with another frame's dates (users_exercise),
      so the day is wrong (FORMATS.md §2.2); emitting it would put values on arbitrary days;
    * sleep_*_ratio: stage minutes / 30-day average, not stage minutes (FORMATS.md §0.7);
    * nremhr, HR zones, badgeType, stress sub-scores, SEMA places, min/max_goal: no catalog metric.
-#}
{%- set daily_csv = 'lifesnaps/rais_anonymized/csv_rais_anonymized/daily_fitbit_sema_df_unprocessed.csv' -%}
{%- set mood_labels = ['ALERT', 'HAPPY', 'NEUTRAL', 'RESTED/RELAXED', 'SAD', 'TENSE/ANXIOUS', 'TIRED'] -%}

{% if wag_files_exist(daily_csv) %}

with raw as (
    select *
    from {{ wag_read_csv(daily_csv, "all_varchar = true, delim = ',', quote = '\"'",
                          required=['id', 'date', 'sleep_duration', 'steps', 'calories', 'sedentary_minutes']) }}
),

typed as (
    select
        'lifesnaps:' || trim(id)                                        as subject_id,
        cast(try_strptime(trim("date"), '%Y-%m-%d') as date)            as day,
        try_cast(sleep_duration as double)                              as sleep_duration,
        try_cast("minutesAsleep" as double)                             as minutes_asleep,
        try_cast("minutesAwake" as double)                              as minutes_awake,
        try_cast("minutesToFallAsleep" as double)                       as minutes_to_fall_asleep,
        try_cast("minutesAfterWakeup" as double)                        as minutes_after_wakeup,
        try_cast(sleep_efficiency as double)                            as sleep_efficiency,
        try_cast(steps as double)                                       as steps,
        try_cast(distance as double)                                    as distance,
        try_cast(calories as double)                                    as calories,
        try_cast(lightly_active_minutes as double)                      as lightly_active_minutes,
        try_cast(moderately_active_minutes as double)                   as moderately_active_minutes,
        try_cast(very_active_minutes as double)                         as very_active_minutes,
        try_cast(sedentary_minutes as double)                           as sedentary_minutes,
        try_cast(resting_hr as double)                                  as resting_hr,
        try_cast(rmssd as double)                                       as rmssd,
        try_cast(spo2 as double)                                        as spo2,
        try_cast(nightly_temperature as double)                         as nightly_temperature,
        try_cast(daily_temperature_variation as double)                 as daily_temperature_variation,
        try_cast(full_sleep_breathing_rate as double)                   as full_sleep_breathing_rate,
        try_cast("filteredDemographicVO2Max" as double)                 as vo2max,
        try_cast(stress_score as double)                                as stress_score,
        try_cast(bpm as double)                                         as bpm,
        try_cast(step_goal as double)                                   as step_goal,
        {%- for label in mood_labels %}
        try_cast("{{ label }}" as double)                               as "mood_{{ label }}",
        {%- endfor %}
        nullif(trim("activityType"), '')                                as activity_type,
        lower(trim(mindfulness_session))                                as mindfulness_session,
        nullif(trim(age), '')                                           as age,
        nullif(trim(gender), '')                                        as gender,
        nullif(trim(bmi), '')                                           as bmi
    from raw
    where nullif(trim(id), '') is not null
),

flagged as (
    select
        *,
        coalesce(sedentary_minutes = 1440
                 and lightly_active_minutes = 0
                 and moderately_active_minutes = 0
                 and very_active_minutes = 0, false)                    as not_worn,
        ({% for label in mood_labels %}coalesce("mood_{{ label }}", 0){% if not loop.last %} + {% endif %}{% endfor %}) > 0
                                                                        as mood_answered
    from typed
    where day is not null
),

numeric_wide as (
    select
        subject_id,
        day,
        nullif(sleep_duration, 0)                                       as "daily.sleep_duration",
        nullif(minutes_asleep, 0)                                       as "daily.minutesAsleep",
        minutes_awake                                                   as "daily.minutesAwake",
        minutes_to_fall_asleep                                          as "daily.minutesToFallAsleep",
        minutes_after_wakeup                                            as "daily.minutesAfterWakeup",
        nullif(sleep_efficiency, 0)                                     as "daily.sleep_efficiency",
        case when not not_worn then nullif(steps, 0) end                as "daily.steps",
        case when not not_worn then nullif(distance, 0) end             as "daily.distance",
        case when not not_worn and calories >= 500 then calories end    as "daily.calories",
        case when not not_worn then lightly_active_minutes end          as "daily.lightly_active_minutes",
        case when not not_worn then moderately_active_minutes end       as "daily.moderately_active_minutes",
        case when not not_worn then very_active_minutes end             as "daily.very_active_minutes",
        case when not not_worn then sedentary_minutes end               as "daily.sedentary_minutes",
        case when not not_worn
             then lightly_active_minutes + moderately_active_minutes + very_active_minutes
        end                                                             as "daily.active_minutes",
        nullif(resting_hr, 0)                                           as "daily.resting_hr",
        nullif(rmssd, 0)                                                as "daily.rmssd",
        nullif(spo2, 0)                                                 as "daily.spo2",
        nullif(nightly_temperature, 0)                                  as "daily.nightly_temperature",
        daily_temperature_variation                                     as "daily.daily_temperature_variation",
        nullif(full_sleep_breathing_rate, 0)                            as "daily.full_sleep_breathing_rate",
        nullif(vo2max, 0)                                               as "daily.filteredDemographicVO2Max",
        nullif(stress_score, 0)                                         as "daily.stress_score",
        nullif(bpm, 0)                                                  as "daily.bpm",
        nullif(step_goal, 0)                                            as "sema.step_goal",
        case when mood_answered then "mood_TIRED" end                   as "sema.TIRED",
        case when mood_answered then "mood_TENSE/ANXIOUS" end           as "sema.TENSE/ANXIOUS",
        try_cast(bmi as double)                                         as "profile.bmi"
    from flagged
),

-- UNPIVOT drops NULL cells: a missing value gives no row (staging contract).
numeric_long as (
    unpivot numeric_wide
    on columns(* exclude (subject_id, day))
    into name raw_field value value
),

text_wide as (
    select
        subject_id,
        day,
        nullif(concat_ws(', '
            {%- for label in mood_labels %},
            case when "mood_{{ label }}" = 1 then '{{ label }}' end
            {%- endfor %}
        ), '')                                                          as "sema.mood",
        -- Python-list string "['Swim', 'Walk']" -> 'Swim, Walk'
        nullif(array_to_string(regexp_extract_all(activity_type, '''([^'']+)''', 1), ', '), '')
                                                                        as "daily.activityType",
        case when mindfulness_session = 'true'
             then 'completed a mindfulness session' end                 as "daily.mindfulness_session",
        age                                                             as "profile.age",
        gender                                                          as "profile.gender",
        case when try_cast(bmi as double) is null then bmi end          as "profile.bmi"
    from flagged
),

text_long as (
    unpivot text_wide
    on columns(* exclude (subject_id, day))
    into name raw_field value value_text
)

select
    'lifesnaps'                 as dataset,
    subject_id,
    day,
    cast(raw_field as varchar)  as raw_field,
    cast(value as double)       as value,
    cast(null as varchar)       as value_text
from numeric_long
union all
select
    'lifesnaps'                 as dataset,
    subject_id,
    day,
    cast(raw_field as varchar)  as raw_field,
    cast(null as double)        as value,
    cast(value_text as varchar) as value_text
from text_long

{% else %}
{{ wag_empty_raw() }}
{% endif %}
