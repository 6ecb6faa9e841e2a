{#-
  PMData daily resting heart rate -> staging contract (DESIGN.md §2; FORMATS.md §1.2, §0.2, §0.5).

  Input : pmdata/<pid>/fitbit/resting_heart_rate.json, one element per day:
          {"dateTime": "2019-11-01 00:00:00", "value": {"date": "11/01/19", "value": 53.74, "error": 6.79}}
  Output: raw_field 'resting_heart_rate.value' (bpm).

  Rules
  * day = date of dateTime (ISO). value.date is month-first and null on missing days: not used.
  * value 0 (with date null, error 0) is Fitbit's "no estimate" sentinel -> no row; so is any
    non-positive or absent value.
  * A repeated dateTime collapses to the mean of its positive values (none observed).
  * dateTime and value are parsed by the macros of macros/quarantine.sql; an element with no
    readable dateTime or a value that is not a number is listed in raw_rejected.
-#}
{{ pmdata_resting_heart_rate(glob=wag_source_glob('pmdata_raw', 'fitbit_resting_heart_rate')) }}
