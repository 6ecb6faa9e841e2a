{#-
  Oura nightly SpO2 (API v2 `daily_spo2`) of a person's Oura export, renamed and cast (issue 28).
  Input : oura/<person>/**/daily_spo2.json or .csv (macros/oura.sql): day, spo2_percentage
          {"average": 97.2} (in a CSV: that JSON text, a number, or a flattened spo2_percentage.average).
  Output: one row per object: day, recorded_at, spo2_average (%).
-#}
{{ oura_daily_model('daily_spo2') }}
