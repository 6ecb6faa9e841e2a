{#-
  PMData Fitbit exercise bouts -> staging contract (DESIGN.md §2; FORMATS.md §1.4, §5).

  Input : pmdata/<pid>/fitbit/exercise.json, one element per activity bout (auto-detected or tracker).
  Output raw_fields:
    exercise.activities (text): the day's bouts as 'Name (N min)' joined by '; ', ordered by start time
        (then logId), e.g. 'Walk (22 min); Run (24 min)'. N = duration (ms) / 60000 rounded to whole
        minutes; a bout without duration is listed by name only.
    exercise.vo2Max (ml/kg/min): mean of vo2Max.vo2Max over the day's bouts that carry one (GPS runs).

  Rules
  * day = local calendar date of startTime ('2019-11-05 22:40:41', local wall time; the month-first
    originalStartTime is not used).
  * Bouts are deduplicated on logId.
  * startTime, duration and vo2Max are parsed by the macros of macros/quarantine.sql ('T' or space,
    '.000', 'Z' read); a bout without a readable startTime, or with a duration / vo2Max that is not
    a number, is listed in raw_rejected.
-#}
{{ pmdata_exercise(glob=wag_source_glob('pmdata_raw', 'fitbit_exercise')) }}
