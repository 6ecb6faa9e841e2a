-- How each metric is measured in each dataset (DESIGN.md §2): the raw fields behind it and the
-- field-map notes (instrument, scale, orientation, unit conversion). Instruments differ across
-- datasets under one metric id (mental_stress is PMSys 1-5 in PMData, PSS-4 0-16 in GLOBEM, the
-- inverted Fitbit stress score in LifeSnaps), so an answer must say which one a number comes from.
with int_raw_field_map as (
    select * from {{ ref('int_raw_field_map') }}
),

stg_wide__daily_metrics as (
    select * from {{ ref('stg_wide__daily_metrics') }}
),

native as (
    select
        dataset,
        metric_id,
        {{ wag_string_agg('raw_field', "', '", 'raw_field') }}  as raw_fields,
        {{ wag_string_agg('note', "' | '", 'raw_field') }}      as measurement
    from int_raw_field_map
    group by dataset, metric_id
),

wide as (
    select
        dataset,
        metric_id,
        {{ wag_string_agg('raw_field', "', '", 'raw_field', distinct=true) }}                      as raw_fields,
        'column ' || {{ wag_string_agg('raw_field', "', '", 'raw_field', distinct=true) }}
            || ' of the wide daily source ' || dataset || ' (catalog unit assumed)'   as measurement
    from stg_wide__daily_metrics
    group by dataset, metric_id
)

select * from native
union all
select * from wide
