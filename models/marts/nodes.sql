-- Knowledge-graph nodes (DESIGN.md §9): the metric catalog, plus where each metric has data.
with metric_values as (
    select * from {{ ref('metric_values') }}
),

metric_catalog as (
    select * from {{ ref('metric_catalog') }}
),

coverage as (
    select
        metric_id,
        {{ wag_string_agg('dataset', "', '", 'dataset', distinct=true) }}  as datasets_with_data,
        count(distinct subject_id)                          as n_subjects_with_data,
        count(*)                                            as n_values
    from metric_values
    group by metric_id
)

select
    c.metric_id,
    c.name,
    c.category,
    c.unit,
    c.data_kind,
    c.description,
    c.normal_range,
    c.recommendations,
    c.aliases,
    c.physical_min,
    c.physical_max,
    c.origin,
    c.data_sources,
    coverage.datasets_with_data,
    coalesce(coverage.n_subjects_with_data, 0) as n_subjects_with_data,
    coalesce(coverage.n_values, 0)             as n_values
from metric_catalog as c
left join coverage using (metric_id)
