{#-
  Oura daily sleep summaries (API v2 `daily_sleep`) of a person's Oura export, renamed and cast (issue 28).
  Input : oura/<person>/**/daily_sleep.json or .csv (macros/oura.sql): id, day, score (0-100),
          contributors, timestamp. Output: one row per object: day (Oura's, the night's wake-up day),
          recorded_at, score. Rules (one row per day, 0 = no score) in int_oura__values_unpivoted.
-#}
{{ oura_daily_model('daily_sleep') }}
