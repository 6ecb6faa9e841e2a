{% macro wag_staging_models() -%}
  {#- The models that follow the staging contract (DESIGN.md §2):
      dataset, subject_id, day, raw_field, value (raw unit), value_text: a staging model, or an
      int_<dataset>__* model where the dataset's rules (de-duplication, day attribution, main sleep) live
      in models/intermediate/<dataset>/ and staging only renames and casts (issue 25: PMData sleep score,
      wellness and session RPE, IFH Affect sleep; issue 28: a person's Oura export).
      A new native source adds its model names here and its rows to a raw_field_map seed.
      On Spark the Apple Health models are disabled (dbt_project.yml: their reader is a dbt Python model,
      DuckDB-only) and left out. -#}
  {%- set models = [
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
      'int_ifh_affect__sleep_unpivoted',
      'stg_lifesnaps__daily',
      'stg_lifesnaps__surveys',
      'stg_pmdata__activity_minutes',
      'stg_pmdata__distance',
      'stg_pmdata__exercise',
      'stg_pmdata__reporting',
      'stg_pmdata__resting_heart_rate',
      'stg_pmdata__sleep',
      'int_pmdata__sleep_score_deduplicated',
      'int_pmdata__srpe_aggregated',
      'stg_pmdata__steps',
      'int_pmdata__wellness_deduplicated',
      'int_oura__values_unpivoted',
  ] -%}
  {%- if target.type == 'spark' -%}
    {%- set models = models | reject('in', ['stg_apple_health__quantities', 'stg_apple_health__sleep']) | list -%}
  {%- endif -%}
  {{ return(models) }}
{%- endmacro %}
