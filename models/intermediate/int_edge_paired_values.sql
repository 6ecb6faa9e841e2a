-- Paired daily values of the two ends of every prior edge, per subject (input of DESIGN.md §5).
-- Only pairs that share an edge are correlated: the weights (§6) use nothing else.
-- Grain: one row per (dataset, subject_id, node_a, node_b, day) where both metrics have a numeric value.
with numeric_values as (
    select dataset, subject_id, metric_id, day, value
    from {{ ref('metric_values') }}
    where value is not null
)

select
    a.dataset,
    a.subject_id,
    e.node_a,
    e.node_b,
    a.day,
    a.value as value_a,
    b.value as value_b
from {{ ref('edges') }} as e
inner join numeric_values as a on a.metric_id = e.node_a
inner join numeric_values as b
    on b.metric_id = e.node_b
   and b.dataset = a.dataset and b.subject_id = a.subject_id and b.day = a.day
