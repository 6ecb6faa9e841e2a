{#-
  Fitbit account export (Google Takeout) exercise bouts -> staging contract (issue 28).

  Input : fitbit/<person>/**/exercise-*.json (Takeout numbers these files, exercise-0.json,
          exercise-100.json, …), one element per bout: PMData's exercise.json objects, startTime
          month-first 'MM/DD/YY HH:MM:SS' (local wall clock).
  Output: exercise.activities (text) and exercise.vo2Max, as stg_pmdata__exercise.
  Rules : those of stg_pmdata__exercise, by the same macro (pmdata_exercise): bouts deduplicated on
          logId, day = local date of startTime.
-#}
{% if target.type != 'spark' %}-- depends_on: {{ ref('stg_fitbit__takeout_files') }}{% endif %}
{{ pmdata_exercise(dataset='fitbit', glob='fitbit/*/**/exercise-*.json') }}
