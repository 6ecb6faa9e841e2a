-- Paired daily values of the two ends of every prior edge, per subject (input of DESIGN.md §5).
-- Only pairs that share an edge are correlated: the weights (§6) use nothing else.
-- Grain: one row per (dataset, subject_key, edge_key, day) where both metrics have a numeric value.
-- Integer keys (int_subject_keys, int_edge_keys) instead of the subject's and the metrics' names:
-- at 500 subjects x 365 days this table has 35 M rows, and every name costs its bytes in each join,
-- sort and window over it.
-- Incremental by subject (macros/incremental.sql): a build recomputes only int_changed_subjects.
{{ config(materialized=wag_incremental_materialization(), incremental_strategy='append',
          pre_hook="{{ wag_delete_changed_subjects(this, 'subject_key', 'subject_key') }}") }}
with metric_values as (
    select * from {{ ref('metric_values') }}
),

int_subject_keys as (
    select * from {{ ref('int_subject_keys') }}
),

int_edge_keys as (
    select * from {{ ref('int_edge_keys') }}
),

numeric_values as (
    select k.subject_key, v.dataset, v.metric_id, v.day, v.value
    from metric_values as v
    inner join int_subject_keys as k
        on k.dataset = v.dataset and k.subject_id = v.subject_id
    where v.value is not null and {{ wag_changed_subject_filter('v.subject_id') }}
)

select
    a.dataset,
    a.subject_key,
    e.edge_key,
    a.day,
    a.value as value_a,
    b.value as value_b
from int_edge_keys as e
inner join numeric_values as a on a.metric_id = e.node_a
inner join numeric_values as b
    on b.metric_id = e.node_b
   and b.subject_key = a.subject_key and b.dataset = a.dataset and b.day = a.day
