-- Population Spearman correlations r^pop_{x,y} at monthly snapshots (DESIGN.md §5, §6 "As of"): per
-- dataset, prior edge and snapshot day s, on the dataset's paired subject-days <= s pooled.
-- Snapshot days: the dataset's last paired day (the full history, is_full_history;
-- correlations_population is that snapshot), built by this SELECT, and every month-end before it,
-- inserted one month at a time by the post-hook wag_insert_population_month_snapshots (one pooled
-- ranking in memory at a time: the replicated rows of every month at once spilled and took 14 min
-- at 500 subjects x 365 days). A query with reference day t reads the last snapshot <= t (the
-- approximation §6 allows, stated in its output as pop_as_of_day), so retrieval never pools days
-- after t and never re-ranks the population per query.
-- Ranks: by per-value counts when a dataset's values tie a lot (integer steps, minutes, scores at
-- population scale), else by window sorts (wag_pooled_rank_method; the same values either way); the
-- pooled rows are scanned from the table by each reference, not copied (wag_not_materialized).
-- Validity: rho_unchecked is rho whenever both ranked series vary (NULL only with variance_reason);
-- the dbt vars' thresholds (min_samples, min_pop_subjects) give spearman_rho / null_reason here, and a
-- query with other thresholds applies them to n and n_subjects (macro spearman_checked_reason).
-- Incremental by dataset (macros/incremental.sql): a build recomputes the full-history snapshot of the
-- datasets with a changed subject and their month-ends from the first changed month on (an old
-- full-history snapshot on a month-end before the first change is kept as that month-end's snapshot).
-- depends_on: {{ ref('int_changed_subjects') }}
{{ config(materialized=wag_incremental_materialization(), incremental_strategy='append',
          pre_hook=["{{ wag_reuse_full_history_as_month_end(this) }}",
                    "{{ wag_delete_stale_population_snapshots(this) }}"],
          post_hook="{{ wag_insert_population_month_snapshots(this, ref('int_edge_paired_values')) }}") }}
with dataset_last_day as (
    select dataset, max(day) as last_day
    from {{ ref('int_edge_paired_values') }}
    where {% if is_incremental() %}dataset in (select dataset from {{ ref('int_changed_subjects') }}){% else %}true{% endif %}
    group by dataset
),

snapshot_pairs as {{ wag_not_materialized() }} (
    select d.last_day as snapshot_day, p.dataset, p.subject_key, p.edge_key, p.value_a, p.value_b
    from {{ ref('int_edge_paired_values') }} as p
    inner join dataset_last_day as d on d.dataset = p.dataset
)

{{ wag_population_snapshot_select('snapshot_pairs', 'true',
      wag_pooled_rank_method(ref('int_edge_paired_values'),
                             "select dataset from " ~ ref('int_changed_subjects') if is_incremental() else none)) }}
