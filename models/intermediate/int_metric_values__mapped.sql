-- Every staged observation in catalog terms (DESIGN.md §2), before duplicates collapse and bounds.
--  * native sources: staging rows joined to the field map; value converted to the catalog unit
--  * wide daily sources: already resolved to a metric_id by stg_wide__daily_metrics
-- Grain: one row per (dataset, subject_id, metric_id, day, raw_field).
with staged as (
    {% for m in wag_staging_models() %}
    select dataset, subject_id, day, raw_field, value, value_text from {{ ref(m) }}
    {% if not loop.last %}union all{% endif %}
    {% endfor %}
),

native as (
    select
        s.dataset,
        s.subject_id,
        f.metric_id,
        s.day,
        s.raw_field,
        s.value * f.scale + f.value_offset as value,
        s.value_text,
        false as is_wide
    from staged as s
    inner join {{ ref('int_raw_field_map') }} as f
        on f.dataset = s.dataset and f.raw_field = s.raw_field
),

wide as (
    select dataset, subject_id, metric_id, day, raw_field, value, value_text, true as is_wide
    from {{ ref('stg_wide__daily_metrics') }}
)

select * from native
union all
select * from wide
