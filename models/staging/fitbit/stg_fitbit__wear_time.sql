{#-
  Wear evidence per day of a person's Fitbit Takeout export (issue 28; DESIGN.md §2 "Non-wear"): the
  minutes with a heart rate of fitbit/<person>/**/time_in_heart_rate_zones-YYYY-MM-DD.json, by the
  macro of stg_pmdata__wear_time (same rules, same objects, month-first MM/DD/YY dates). Output: one
  row per (subject_id, day): wear_minutes, evidence; int_wear_days applies the min_wear_hours rule.
-#}
{% if target.type != 'spark' %}-- depends_on: {{ ref('stg_fitbit__takeout_files') }}{% endif %}
{{ pmdata_wear_time(dataset='fitbit', hr_glob='fitbit/*/**/time_in_heart_rate_zones-*.json') }}
