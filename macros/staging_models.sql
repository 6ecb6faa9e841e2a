{% macro wag_staging_models() -%}
  {#- The models (staging, and int_oura__values_unpivoted) that follow the staging contract (DESIGN.md §2):
      dataset, subject_id, day, raw_field, value (raw unit), value_text.
      int_oura__values_unpivoted: a person's Oura export (issue 28), whose contract rows come from
      intermediate (the main-sleep and wake-up-day rules live there).
      A new native source adds its model names here and its rows to a raw_field_map seed. -#}
  {{ return([
      'stg_apple_health__quantities',
      'stg_apple_health__sleep',
      'stg_fitbit__activity_minutes',
      'stg_fitbit__distance',
      'stg_fitbit__exercise',
      'stg_fitbit__resting_heart_rate',
      'stg_fitbit__sleep',
      'stg_fitbit__steps',
      'stg_globem__calls',
      'stg_globem__ema',
      'stg_globem__location',
      'stg_globem__screen',
      'stg_globem__sleep',
      'stg_globem__steps',
      'stg_ifh_affect__activity',
      'stg_ifh_affect__sleep',
      'stg_lifesnaps__daily',
      'stg_lifesnaps__surveys',
      'stg_pmdata__activity_minutes',
      'stg_pmdata__distance',
      'stg_pmdata__exercise',
      'stg_pmdata__reporting',
      'stg_pmdata__resting_heart_rate',
      'stg_pmdata__sleep',
      'stg_pmdata__sleep_score',
      'stg_pmdata__srpe',
      'stg_pmdata__steps',
      'stg_pmdata__wellness',
      'int_oura__values_unpivoted',
  ]) }}
{%- endmacro %}
