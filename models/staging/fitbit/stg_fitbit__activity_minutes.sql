{#-
  Fitbit account export (Google Takeout) daily activity-level minutes -> staging contract (issue 28).

  Input : fitbit/<person>/**/{sedentary,lightly_active,moderately_active,very_active}_minutes-YYYY-MM-DD.json,
          one element per day: {"dateTime": "03/01/24 00:00:00", "value": "245"} (PMData's *_minutes.json
          objects, month-first MM/DD/YY).
  Output: the raw fields of stg_pmdata__activity_minutes (activity.*; raw_field_map_fitbit).
  Rules : those of stg_pmdata__activity_minutes, by the same macro (pmdata_activity_minutes): the
          not-worn day (1,440 sedentary and no active minute) gives no row; int_wear_days applies
          min_wear_hours to the heart-rate minutes of time_in_heart_rate_zones-*.json.
-#}
{% if target.type != 'spark' %}-- depends_on: {{ ref('stg_fitbit__takeout_files') }}{% endif %}
{{ pmdata_activity_minutes(dataset='fitbit', glob='fitbit/*/**/*_minutes-*.json') }}
