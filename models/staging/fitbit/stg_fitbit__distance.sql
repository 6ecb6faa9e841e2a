{#-
  Fitbit account export (Google Takeout) per-minute distance -> daily distance (issue 28).

  Input : fitbit/<person>/**/distance-YYYY-MM-DD.json, elements {"dateTime": "MM/DD/YY HH:MM:SS",
          "value": "<centimetres>"} (PMData's distance.json objects, one file per period).
  Output: raw_field 'distance.sum' (centimetres; raw_field_map_fitbit converts to metres).
  Rules : those of stg_pmdata__distance, by the same macro (pmdata_minutes_to_daily).
-#}
{% if target.type != 'spark' %}-- depends_on: {{ ref('stg_fitbit__takeout_files') }}{% endif %}
{{ pmdata_minutes_to_daily('fitbit/*/**/distance-*.json', 'distance.sum', dataset='fitbit',
                           hr_glob='fitbit/*/**/time_in_heart_rate_zones-*.json') }}
