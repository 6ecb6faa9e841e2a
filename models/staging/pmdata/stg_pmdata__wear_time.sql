{#-
  PMData wear evidence per day (DESIGN.md §2 "Non-wear"; FORMATS.md §1.2): minutes with a heart-rate
  reading, i.e. the sum of the four zones of `pmdata/<pid>/fitbit/time_in_heart_rate_zones.json`
  ({"dateTime": "2019-11-01 00:00:00", "value": {"valuesInZones": {"BELOW_DEFAULT_ZONE_1": 1254.0, ...}}}).
  Fitbit fills sedentary minutes up to 1,440 whether or not the watch is worn, so minutes with a heart
  rate are the only direct measure of wear time in this export.
  Output: one row per (subject_id, day): wear_minutes (0..1440), evidence (text). Not a staging-contract
  model: int_wear_days reads it to mark non-wear days missing for the activity metrics.
  A repeated dateTime collapses to its maximum; a day absent from the file has no row (no evidence).
  dateTime and the zone minutes are parsed by macros shared with raw_rejected (pmdata_zone_day,
  pmdata_zone_minutes); an element with no readable dateTime or a zone that is not a number is listed there.
-#}
{{ pmdata_wear_time(hr_glob=wag_source_glob('pmdata_raw', 'fitbit_time_in_heart_rate_zones')) }}
