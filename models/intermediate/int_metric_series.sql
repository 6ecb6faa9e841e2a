-- The daily numeric series of every metric that is an end of a prior edge, per subject: the input of
-- the Spearman correlations (DESIGN.md §5; macros/corrected_ranks.sql ranks each series once).
-- Grain: one row per (dataset, subject_key, metric_id, day) with a numeric value (metric_values is
-- unique on (dataset, subject_id, metric_id, day)). 4.1 M rows at 500 subjects x 365 days x 28
-- metrics, where the paired table it replaces (one row per edge and common day) had 34.8 M.
-- Incremental by subject (macros/incremental.sql): a build recomputes only int_changed_subjects.
{{ config(materialized=wag_incremental_materialization(), incremental_strategy='append',
          pre_hook="{{ wag_delete_changed_subjects(this, 'subject_key', 'subject_key') }}") }}
with edge_metrics as (
    select node_a as metric_id from {{ ref('int_edge_keys') }}
    union
    select node_b as metric_id from {{ ref('int_edge_keys') }}
)

select
    v.dataset,
    k.subject_key,
    v.metric_id,
    v.day,
    v.value
from {{ ref('metric_values') }} as v
inner join {{ ref('int_subject_keys') }} as k
    on k.dataset = v.dataset and k.subject_id = v.subject_id
inner join edge_metrics as m on m.metric_id = v.metric_id
where v.value is not null and {{ wag_changed_subject_filter('v.subject_id') }}
