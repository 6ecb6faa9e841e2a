{#-
  Oura daily activity (API v2 `daily_activity`) of a person's Oura export, renamed and cast (issue 28).
  Input : oura/<person>/**/daily_activity.json or .csv (macros/oura.sql): day (Oura's activity day,
          04:00-03:59 local, labelled by its start date), steps, active_calories, total_calories (kcal),
          equivalent_walking_distance (m), high/medium/low_activity_time, sedentary_time, resting_time,
          non_wear_time (seconds), timestamp. Output: one row per object with those fields.
          Rules (one row per day, the not-worn day) in int_oura__values_unpivoted.
-#}
{{ oura_daily_model('daily_activity') }}
