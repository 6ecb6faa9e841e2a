{#-
  LifeSnaps daily Fitbit + SEMA table -> staging contract rows (DESIGN.md §2, FORMATS.md §2.2, §5).

  Input : <data_dir>/lifesnaps/rais_anonymized/csv_rais_anonymized/daily_fitbit_sema_df_unprocessed.csv
          (CRLF, leading unnamed pandas-index column, 63 columns, one row per (id, date), empty = missing,
          numbers written both as `149` and `8833.0`). Read all-VARCHAR, then parsed by the macros of
          macros/quarantine.sql (wag_parse_date, wag_parse_number): an empty cell is missing; a row
          without id or readable date, or a non-empty numeric cell that does not parse, gives no row
          and is listed with its reason in raw_rejected (never an error).
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
{%- set daily_csv = wag_source_glob('lifesnaps_raw', 'daily_fitbit_sema_df_unprocessed') -%}
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
        {{ wag_parse_date(wag_q('date')) }}            as day,
        {{ wag_parse_number('sleep_duration') }}                              as sleep_duration,
        {{ wag_parse_number(wag_q('minutesAsleep')) }}                             as minutes_asleep,
        {{ wag_parse_number(wag_q('minutesAwake')) }}                              as minutes_awake,
        {{ wag_parse_number(wag_q('minutesToFallAsleep')) }}                       as minutes_to_fall_asleep,
        {{ wag_parse_number(wag_q('minutesAfterWakeup')) }}                        as minutes_after_wakeup,
        {{ wag_parse_number('sleep_efficiency') }}                            as sleep_efficiency,
        {{ wag_parse_number('steps') }}                                       as steps,
        {{ wag_parse_number('distance') }}                                    as distance,
        {{ wag_parse_number('calories') }}                                    as calories,
        {{ wag_parse_number('lightly_active_minutes') }}                      as lightly_active_minutes,
        {{ wag_parse_number('moderately_active_minutes') }}                   as moderately_active_minutes,
        {{ wag_parse_number('very_active_minutes') }}                         as very_active_minutes,
        {{ wag_parse_number('sedentary_minutes') }}                           as sedentary_minutes,
        {{ wag_parse_number('resting_hr') }}                                  as resting_hr,
        {{ wag_parse_number('rmssd') }}                                       as rmssd,
        {{ wag_parse_number('spo2') }}                                        as spo2,
        {{ wag_parse_number('nightly_temperature') }}                         as nightly_temperature,
        {{ wag_parse_number('daily_temperature_variation') }}                 as daily_temperature_variation,
        {{ wag_parse_number('full_sleep_breathing_rate') }}                   as full_sleep_breathing_rate,
        {{ wag_parse_number(wag_q('filteredDemographicVO2Max')) }}                 as vo2max,
        {{ wag_parse_number('stress_score') }}                                as stress_score,
        {{ wag_parse_number('bpm') }}                                         as bpm,
        {{ wag_parse_number('step_goal') }}                                   as step_goal,
        {%- for label in mood_labels %}
        {{ wag_parse_number(wag_q(label ~ '')) }}                             as {{ wag_q('mood_' ~ label) }},
        {%- endfor %}
        nullif(trim({{ wag_q('activityType') }}), '')                                as activity_type,
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
        ({% for label in mood_labels %}coalesce({{ wag_q('mood_' ~ label) }}, 0){% if not loop.last %} + {% endif %}{% endfor %}) > 0
                                                                        as mood_answered
    from typed
    where day is not null
),

numeric_wide as (
    select
        subject_id,
        day,
        nullif(sleep_duration, 0)                                       as {{ wag_q('daily.sleep_duration') }},
        nullif(minutes_asleep, 0)                                       as {{ wag_q('daily.minutesAsleep') }},
        minutes_awake                                                   as {{ wag_q('daily.minutesAwake') }},
        minutes_to_fall_asleep                                          as {{ wag_q('daily.minutesToFallAsleep') }},
        minutes_after_wakeup                                            as {{ wag_q('daily.minutesAfterWakeup') }},
        nullif(sleep_efficiency, 0)                                     as {{ wag_q('daily.sleep_efficiency') }},
        case when not not_worn then nullif(steps, 0) end                as {{ wag_q('daily.steps') }},
        case when not not_worn then nullif(distance, 0) end             as {{ wag_q('daily.distance') }},
        case when not not_worn and calories >= 500 then calories end    as {{ wag_q('daily.calories') }},
        case when not not_worn then lightly_active_minutes end          as {{ wag_q('daily.lightly_active_minutes') }},
        case when not not_worn then moderately_active_minutes end       as {{ wag_q('daily.moderately_active_minutes') }},
        case when not not_worn then very_active_minutes end             as {{ wag_q('daily.very_active_minutes') }},
        case when not not_worn then sedentary_minutes end               as {{ wag_q('daily.sedentary_minutes') }},
        case when not not_worn
             then lightly_active_minutes + moderately_active_minutes + very_active_minutes
        end                                                             as {{ wag_q('daily.active_minutes') }},
        nullif(resting_hr, 0)                                           as {{ wag_q('daily.resting_hr') }},
        nullif(rmssd, 0)                                                as {{ wag_q('daily.rmssd') }},
        nullif(spo2, 0)                                                 as {{ wag_q('daily.spo2') }},
        nullif(nightly_temperature, 0)                                  as {{ wag_q('daily.nightly_temperature') }},
        daily_temperature_variation                                     as {{ wag_q('daily.daily_temperature_variation') }},
        nullif(full_sleep_breathing_rate, 0)                            as {{ wag_q('daily.full_sleep_breathing_rate') }},
        nullif(vo2max, 0)                                               as {{ wag_q('daily.filteredDemographicVO2Max') }},
        nullif(stress_score, 0)                                         as {{ wag_q('daily.stress_score') }},
        nullif(bpm, 0)                                                  as {{ wag_q('daily.bpm') }},
        nullif(step_goal, 0)                                            as {{ wag_q('sema.step_goal') }},
        case when mood_answered then {{ wag_q('mood_TIRED') }} end                   as {{ wag_q('sema.TIRED') }},
        case when mood_answered then {{ wag_q('mood_TENSE/ANXIOUS') }} end           as {{ wag_q('sema.TENSE/ANXIOUS') }},
        {{ wag_parse_number('bmi') }}                                         as {{ wag_q('profile.bmi') }}
    from flagged
),

-- UNPIVOT drops NULL cells: a missing value gives no row (staging contract).
numeric_long as (
    {{ wag_unpivot('numeric_wide', ['daily.sleep_duration', 'daily.minutesAsleep', 'daily.minutesAwake', 'daily.minutesToFallAsleep', 'daily.minutesAfterWakeup', 'daily.sleep_efficiency', 'daily.steps', 'daily.distance', 'daily.calories', 'daily.lightly_active_minutes', 'daily.moderately_active_minutes', 'daily.very_active_minutes', 'daily.sedentary_minutes', 'daily.active_minutes', 'daily.resting_hr', 'daily.rmssd', 'daily.spo2', 'daily.nightly_temperature', 'daily.daily_temperature_variation', 'daily.full_sleep_breathing_rate', 'daily.filteredDemographicVO2Max', 'daily.stress_score', 'daily.bpm', 'sema.step_goal', 'sema.TIRED', 'sema.TENSE/ANXIOUS', 'profile.bmi'], 'raw_field', 'value') }}
),

text_wide as (
    select
        subject_id,
        day,
        nullif(concat_ws(', '
            {%- for label in mood_labels %},
            case when {{ wag_q('mood_' ~ label) }} = 1 then '{{ label }}' end
            {%- endfor %}
        ), '')                                                          as {{ wag_q('sema.mood') }},
        -- Python-list string "['Swim', 'Walk']" -> 'Swim, Walk'
        nullif({{ wag_regexp_extract_all_joined('activity_type', "' || chr(39) || '([^' || chr(39) || ']+)' || chr(39) || '", 1, ', ') }}, '')
                                                                        as {{ wag_q('daily.activityType') }},
        case when mindfulness_session = 'true'
             then 'completed a mindfulness session' end                 as {{ wag_q('daily.mindfulness_session') }},
        age                                                             as {{ wag_q('profile.age') }},
        gender                                                          as {{ wag_q('profile.gender') }},
        case when {{ wag_parse_number('bmi') }} is null then bmi end          as {{ wag_q('profile.bmi') }}
    from flagged
),

text_long as (
    {{ wag_unpivot('text_wide', ['sema.mood', 'daily.activityType', 'daily.mindfulness_session', 'profile.age', 'profile.gender', 'profile.bmi'], 'raw_field', 'value_text') }}
)

select
    'lifesnaps'                 as dataset,
    subject_id,
    day,
    cast(raw_field as string)  as raw_field,
    cast(value as double)       as value,
    cast(null as string)       as value_text
from numeric_long
union all
select
    'lifesnaps'                 as dataset,
    subject_id,
    day,
    cast(raw_field as string)  as raw_field,
    cast(null as double)        as value,
    cast(value_text as string) as value_text
from text_long

{% else %}
{{ wag_empty_raw() }}
{% endif %}
