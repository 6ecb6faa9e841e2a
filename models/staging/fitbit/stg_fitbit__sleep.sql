{#-
  Fitbit account export (Google Takeout) sleep logs -> staging contract (issue 28; DESIGN.md §2 "A person's
  own export": the PMData staging logic serves both).

  Input : fitbit/<person>/**/sleep-YYYY-MM-DD.json (one file per period under Takeout/Fitbit/Global
          Export Data/), one element per sleep log: the Fitbit v1.2 objects of PMData's sleep.json
          (logId, dateOfSleep, startTime, endTime, minutesAsleep, …, levels, mainSleep).
  Output: the raw fields of stg_pmdata__sleep (raw_field_map_fitbit), day = dateOfSleep = the wake-up day.
  Rules : those of stg_pmdata__sleep, by the same macro (pmdata_sleep_logs): logs deduplicated on logId
          (a log repeated in two period files counts once), main sleep only, the longest main sleep per
          day; raw_rejected lists the logs it cannot use.
-#}
{% if target.type != 'spark' %}-- depends_on: {{ ref('stg_fitbit__takeout_files') }}{% endif %}
{{ pmdata_sleep_logs(dataset='fitbit', glob='fitbit/*/**/sleep-*.json') }}
