{#-
  PMData per-minute steps -> daily steps (DESIGN.md §2; FORMATS.md §1.2, §0.1, §0.5, §0.6).

  Input : pmdata/<pid>/fitbit/steps.json (only some participants have it), one element per reported
          minute: {"dateTime": "2019-11-01 00:48:00", "value": "0"} (steps in that minute, string;
          local wall-clock time).
  Output: raw_field 'steps.sum' = steps per local calendar day (steps).

  Rules
  * Repeated timestamps (p13 repeats 217 minutes with identical values) collapse to one minute
    (their maximum) before summing.
  * A day without minute rows has no row (missing, not zero).
  * A day whose minutes sum to 0 and that has no heart-rate data (no positive minutes in
    time_in_heart_rate_zones.json that day, or no such file) is a no-wear day (DESIGN §2:
    "0 steps and no heart-rate data") -> no row. A 0-step day with heart-rate data stays 0.
    The daily activity files' not-worn flag (sedentary = 1440) is NOT used here: on p03 2019-12-10
    it flags a day that has 195 steps and 540 minutes of heart-rate data.
-#}
{{ pmdata_minutes_to_daily(wag_source_glob('pmdata_raw', 'fitbit_steps'), 'steps.sum',
                           hr_glob=wag_source_glob('pmdata_raw', 'fitbit_time_in_heart_rate_zones')) }}
