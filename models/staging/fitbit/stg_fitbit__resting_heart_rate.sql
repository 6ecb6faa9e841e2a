{#-
  Fitbit account export (Google Takeout) daily resting heart rate -> staging contract (issue 28).

  Input : fitbit/<person>/**/resting_heart_rate-YYYY-MM-DD.json, one element per day:
          {"dateTime": "03/01/24 00:00:00", "value": {"date": "03/01/24", "value": 57.3, "error": 6.1}}
          (PMData's resting_heart_rate.json objects, month-first MM/DD/YY).
  Output: raw_field 'resting_heart_rate.value' (bpm).
  Rules : those of stg_pmdata__resting_heart_rate, by the same macro (pmdata_resting_heart_rate):
          value 0 is Fitbit's "no estimate" (no row); a repeated day is the mean of its positive values.
-#}
{% if target.type != 'spark' %}-- depends_on: {{ ref('stg_fitbit__takeout_files') }}{% endif %}
{{ pmdata_resting_heart_rate(dataset='fitbit', glob='fitbit/*/**/resting_heart_rate-*.json') }}
