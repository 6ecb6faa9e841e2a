{#-
  Oura daily readiness (API v2 `daily_readiness`) of a person's Oura export, renamed and cast (issue 28).
  Input : oura/<person>/**/daily_readiness.json or .csv (macros/oura.sql): day, score (0-100),
          temperature_deviation (°C from the personal baseline), contributors, timestamp.
  Output: one row per object: day, recorded_at, score, temperature_deviation.
-#}
{{ oura_daily_model('daily_readiness') }}
