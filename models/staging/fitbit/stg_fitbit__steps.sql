{#-
  Fitbit account export (Google Takeout) per-minute steps -> daily steps (issue 28; DESIGN.md §2
  "A person's own export": the PMData staging logic serves both).

  Input : fitbit/<person>/**/steps-YYYY-MM-DD.json (Takeout writes one file per period under
          Takeout/Fitbit/Global Export Data/), elements {"dateTime": "03/01/24 08:00:00", "value": "12"}:
          the same objects as PMData's fitbit/steps.json, timestamps month-first MM/DD/YY.
  Output: raw_field 'steps.sum' = steps per local calendar day (raw_field_map_fitbit).
  Rules : those of stg_pmdata__steps, by the same macro (pmdata_minutes_to_daily): repeated minutes
          collapse to their maximum, a negative minute is quarantined, a 0-step day without
          heart-rate-zone minutes (time_in_heart_rate_zones-*.json) is a no-wear day (no row).
-#}
{% if target.type != 'spark' %}-- depends_on: {{ ref('stg_fitbit__takeout_files') }}{% endif %}
{{ pmdata_minutes_to_daily('fitbit/*/**/steps-*.json', 'steps.sum', dataset='fitbit',
                           hr_glob='fitbit/*/**/time_in_heart_rate_zones-*.json') }}
