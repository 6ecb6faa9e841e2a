{% macro wag_staging_models() -%}
  {#- The models that follow the staging contract (DESIGN.md §2):
      dataset, subject_id, day, raw_field, value (raw unit), value_text: a staging model where staging
      only renames and casts, or the int_<dataset>__<entity>_unpivoted model where the dataset's rules
      (de-duplication, day attribution, hypnogram expansion) live in models/intermediate/<dataset>/.
      A new native source adds its model names here and its rows to a raw_field_map seed. -#}
  {{ return([
      'stg_apple_health__quantities',
      'stg_apple_health__sleep',
      'stg_fitbit__distance',
      'stg_fitbit__steps',
      'stg_globem__calls',
      'stg_globem__ema',
      'stg_globem__location',
      'stg_globem__screen',
      'stg_globem__sleep',
      'stg_globem__steps',
      'stg_ifh_affect__activity',
      'int_ifh_affect__sleep_unpivoted',
      'stg_lifesnaps__daily',
      'stg_lifesnaps__surveys',
      'int_pmdata__activity_minutes_filtered',
      'stg_pmdata__distance',
      'int_pmdata__exercise_aggregated',
      'stg_pmdata__reporting',
      'int_pmdata__resting_heart_rate_aggregated',
      'int_pmdata__sleep_unpivoted',
      'int_pmdata__sleep_score_deduplicated',
      'int_pmdata__srpe_aggregated',
      'stg_pmdata__steps',
      'int_pmdata__wellness_deduplicated',
  ]) }}
{%- endmacro %}
