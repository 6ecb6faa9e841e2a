{#-
  GLOBEM Fitbit step features -> staging contract (DESIGN.md §2; FORMATS.md §3.2, §5).

  Input : globem/<study>/FeatureData/steps.csv (RAPIDS, ~596 columns, one row per pid x date).
          Raw `allday` features only: fitbit_steps_intraday_rapids_{sumsteps, sumdurationactivebout,
          sumdurationsedentarybout} (steps; minutes; minutes).
  Output: one row per (subject_id, day, raw_field); raw_field = 'steps.' || RAPIDS feature name;
          day = the row's date (00:00-23:59 local, FORMATS §3.2).

  Rules
  * Empty field = missing = no row.
  * No-wear rule (DESIGN §2: "0 steps and no heart-rate data that day is missing, not zero";
    GLOBEM has no heart rate): a day with sumsteps = 0 is treated as not worn and none of its three
    step features is written. In RAPIDS a non-worn minute has 0 steps and counts as sedentary, so
    such a day reads 0 steps / 0 active / 1440 sedentary minutes. The excerpts have no 0-step day
    (minimum 77 steps); active + sedentary = 1440 on every observed day.
  * The sedentary-bout minutes therefore include sleep and any non-wear minutes of a worn day
    (RAPIDS bouts are minute-level step thresholds, not Fitbit's sedentary_minutes).
  * (pid, date) duplicates across study folders (not observed) are averaged.
-#}
{{ config(materialized='table') }}
{#- no-wear day: 0 steps over the whole day -#}
{%- set spec = globem_feature_files()['steps'] %}
{{ globem_allday_features('steps', spec.prefix, 'steps.fitbit_steps_intraday_rapids_', spec.features,
                           where=wag_parse_number(wag_q(spec.prefix ~ 'sumsteps:allday')) ~ ' is distinct from 0') }}
