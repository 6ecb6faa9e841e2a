-- One row per (dataset, subject_id, metric_id, day) with the physical-bounds verdict (DESIGN.md §2).
-- Collapse rule when several raw fields feed one metric on one day: numeric mean, text values
-- joined ('; ', distinct, sorted). A numeric value outside the catalog's [physical_min, physical_max]
-- is a device error or a sentinel: it is rejected (kept in metric_values_rejected), not loaded; so is
-- a non-numeric cell of a wide export in a numeric metric; so is a wear-dependent activity value on a
-- day whose wear evidence shows less than var('min_wear_hours') of wear (int_wear_days, DESIGN.md §2);
-- so is any row dated outside wag_plausible_days() (before 2000-01-01 or after the build day; issue 24).
{%- set plausible = wag_plausible_days() %}
with wear_days as (
    select * from {{ ref('int_wear_days') }}
),

metric_catalog as (
    select * from {{ ref('metric_catalog') }}
),

mapped as {{ wag_not_materialized() }} (
    select dataset, subject_id, metric_id, day, value, value_text, raw_field, is_wide
    from {{ ref('int_metric_values__mapped') }}
    where value is not null or nullif(trim(value_text), '') is not null
),

collapsed as (
    -- only the keys held by several rows are grouped (wag_collapse_duplicates): 25.7 -> 3.9 s at 2,000
    -- subjects, where almost every (subject, metric, day) has one row
    {{ wag_collapse_duplicates('mapped', ['dataset', 'subject_id', 'metric_id', 'day'], [
        ['value', 'value', 'avg(value)'],
        ['value_text', 'value_text', wag_string_agg('value_text', "'; '", 'value_text', distinct=true)],
        ['raw_fields', 'raw_field', wag_string_agg('raw_field', "', '", 'raw_field', distinct=true)],
        ['is_wide', 'is_wide', 'bool_or(is_wide)']]) }}
)

select
    c.dataset,
    c.subject_id,
    c.metric_id,
    c.day,
    c.value,
    c.value_text,
    c.raw_fields,
    c.is_wide,
    k.metric_id is not null as is_known_metric,
    case
        -- the native readers quarantine such records with their locator (raw_rejected); this catches
        -- what no reader dates itself, e.g. a wide export's row or a shifted GLOBEM sleep day (issue 24)
        when c.day not between cast({{ wag_sql_string(plausible[0]) }} as date) and cast({{ wag_sql_string(plausible[1]) }} as date)
            then 'implausible_date (outside {{ plausible[0] }}..{{ plausible[1] }})'
        when k.metric_id is null then 'metric_id not in metric_catalog'
        when w.is_worn = false and c.metric_id in ('{{ var("wear_dependent_metrics") | join("', '") }}')
            then 'non-wear day: ' || cast(round(w.wear_minutes) as integer) || ' min of wear ('
                 || w.evidence || ') < min_wear_hours {{ var("min_wear_hours") }} h'
        when c.value is not null and isnan(c.value) then 'NaN value'
        when c.value is not null and k.physical_min is not null and c.value < k.physical_min
            then 'below physical_min ' || k.physical_min
        when c.value is not null and k.physical_max is not null and c.value > k.physical_max
            then 'above physical_max ' || k.physical_max
        -- a wide export's cell that is not a number, in a numeric metric: a typo, not a label
        -- (native loaders emit labels on purpose: LifeSnaps mood words, demographic buckets)
        when c.is_wide and c.value is null and k.data_kind = 'numeric'
             and k.category <> 'Demographic' and c.metric_id <> 'mood'
            then 'text ' || c.value_text || ' in a numeric metric'
    end as rejection_reason
from collapsed as c
left join metric_catalog as k on k.metric_id = c.metric_id
left join wear_days as w on w.dataset = c.dataset and w.subject_id = c.subject_id and w.day = c.day
