{#-
  GLOBEM phone screen features -> staging contract (DESIGN.md §2; FORMATS.md §3.2, §5).

  Input : globem/<study>/FeatureData/screen.csv (RAPIDS, ~1136 columns, one row per pid x date).
          Raw `allday` features phone_screen_rapids_countepisodeunlock (unlock episodes) and
          phone_screen_rapids_sumdurationunlock (minutes of unlocked screen).
  Output: one row per (subject_id, day, raw_field); raw_field = 'screen.' || RAPIDS feature name;
          day = the row's date.

  Rules: empty field = missing = no row; (pid, date) duplicates across study folders (not
  observed) are averaged.
-#}
{{ config(materialized='table') }}
{%- set spec = globem_feature_files()['screen'] %}
{{ globem_allday_features('screen', spec.prefix, 'screen.phone_screen_rapids_', spec.features) }}
