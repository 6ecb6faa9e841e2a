{#-
  PMData daily activity-level minutes -> staging contract (DESIGN.md §2; FORMATS.md §1.2, §0.1, §0.5).

  Input : pmdata/<pid>/fitbit/{sedentary,lightly_active,moderately_active,very_active}_minutes.json,
          one element per day: {"dateTime": "2019-11-01 00:00:00", "value": "245"} (minutes, string).
  Output raw_fields (minutes):
    activity.sedentary_minutes, activity.lightly_active_minutes,
    activity.moderately_active_minutes, activity.very_active_minutes,
    activity.active_minutes = lightly + moderately + very (only when all three exist that day).

  Rules
  * Not-worn days: sedentary = 1440 and lightly + moderately + very = 0 (an absent file counts as 0)
    -> no row for any field that day (the files carry all 152 days, worn or not).
  * Partly worn days: int_wear_days compares the day's minutes with a heart rate
    (stg_pmdata__wear_time) with var min_wear_hours (10 h); below it the activity values are missing
    (DESIGN.md §2 "Non-wear"), listed in metric_values_rejected with the reason.
  * A repeated dateTime within one file collapses to its maximum (none observed).
  * dateTime and value are parsed by the macros of macros/quarantine.sql; an element whose dateTime
    is not a date or whose value is not a number is listed in raw_rejected.
-#}
{{ pmdata_activity_minutes(glob=wag_source_glob('pmdata_raw', 'fitbit_activity_minutes')) }}
