-- Population Spearman correlations r^pop_{x,y} (DESIGN.md §5, §6 "As of"): per dataset, prior edge
-- and snapshot day s, on the dataset's paired subject-days <= s pooled.
-- Snapshot days: the dataset's last paired day (the full history, is_full_history;
-- correlations_population is that snapshot), built by this SELECT. With var population_as_of =
-- 'exact' (default) that is all: a query with an earlier reference day t pools the subject-days <= t
-- itself. With 'snapshot' the post-hook wag_insert_population_month_snapshots adds every month-end
-- before it, and a query reads the last snapshot <= t (the approximation §6 allows, stated in its
-- output as pop_as_of_day).
-- Method (macros/corrected_ranks.sql, issue 31): each (dataset, metric) series of int_metric_series
-- is ranked once over the dataset's subject-days (<= s), by per-value counts; a pair's average rank
-- on its common days is that rank minus the partner's missing days below it (bit-field running sums),
-- and the Pearson sums of the corrected ranks are accumulated over the common days without storing a
-- pair (rank_C(d) = rank_Dx(d) - #{m in D_x \ D_y: x_m < x_d} - 1/2 #{... x_m = x_d}).
-- Validity: rho_unchecked is rho whenever both ranked series vary (NULL only with variance_reason);
-- the dbt vars' thresholds (min_samples, min_pop_subjects) give spearman_rho / null_reason here, and a
-- query with other thresholds applies them to n and n_subjects (macro spearman_checked_reason).
-- Incremental by dataset (macros/incremental.sql): a build recomputes the full-history snapshot of the
-- datasets with a changed subject and their month-ends from the first changed month on (an old
-- full-history snapshot on a month-end before the first change is kept as that month-end's snapshot).
-- depends_on: {{ ref('int_changed_subjects') }}
-- Runs after correlations_individual (an ordering edge only; see the build-order note there).
-- depends_on: {{ ref('correlations_individual') }}
{{ config(materialized=wag_incremental_materialization(), incremental_strategy='append',
          pre_hook=["{{ wag_reuse_full_history_as_month_end(this) }}",
                    "{{ wag_delete_stale_population_snapshots(this) }}"],
          post_hook="{{ wag_insert_population_month_snapshots(this, ref('int_metric_series')) }}") }}
with pooled as (
    {{ wag_edge_spearman(ref('int_metric_series'), 'pooled',
                         "dataset in (select dataset from " ~ ref('int_changed_subjects') ~ ")" if is_incremental() else 'true') }}
)

{{ wag_population_snapshot_select('pooled', 'max(r.last_day) over (partition by r.dataset)', 'true') }}
