-- Individual Spearman correlations r^s_{x,y} (DESIGN.md §5): per subject, per prior edge, on the
-- subject's paired days. NULL when n < var('min_samples') or a series is constant.
-- Ranked over the integer keys of int_edge_paired_values; names joined back on the small key tables.
-- Incremental by subject (macros/incremental.sql): a build recomputes only int_changed_subjects.
-- Subject batches (wag_individual_batches): above var('individual_batch_rows') paired rows this SELECT
-- ranks batch 0 (subject_key modulo the batch count) and the post-hook wag_insert_individual_batches
-- the others, one statement each, so that each window fits the memory_limit; a subject's correlations
-- never span two batches, so the rows are those of one statement.
{{ config(materialized=wag_incremental_materialization(), incremental_strategy='append',
          pre_hook="{{ wag_delete_changed_subjects(this) }}",
          post_hook="{{ wag_insert_individual_batches(this, ref('int_edge_paired_values')) }}") }}
with paired as {{ wag_not_materialized() }} (
    select * from {{ ref('int_edge_paired_values') }}
    where {{ wag_changed_subject_filter('subject_key', 'subject_key') }}
      and {{ wag_batch_predicate('subject_key', 0, wag_individual_batches(ref('int_edge_paired_values'))) }}
)

{{ wag_individual_select('paired') }}
