-- Per-subject summary used for participant selection (DESIGN.md §3).
--   md_s  = mean over metrics of missing_fraction          (MD_s)
--   vl_s  = max(T_s) - min(T_s) in days                      (VL_s)
--   cv_s  = sum over metrics of CV_{s,m} (NULL CVs skipped)  (CV_s)
--   mi_s  = sum over metric pairs of the plug-in mutual information, in nats   (MI_s):
--           each time-varying metric is cut into var('mi_bins') quantile bins over the subject's
--           days (by rank, so tied values share a bin and a constant metric carries no
--           information); the joint and the marginals are counted on the pair's paired days;
--           pairs with fewer than var('mi_min_pairs') paired days are skipped.
-- Runs after the correlation models (an ordering edge only; see correlations_individual.sql).
-- depends_on: {{ ref('correlations_population_snapshots') }}
{{ config(materialized=wag_incremental_materialization(), incremental_strategy='append',
          pre_hook="{{ wag_delete_changed_subjects(this) }}") }}
with subject_metric_stats as (
    select * from {{ ref('subject_metric_stats') }}
),

metric_catalog as (
    select * from {{ ref('metric_catalog') }}
),

metric_values as (
    select * from {{ ref('metric_values') }}
),

stats as (
    -- incremental by subject (macros/incremental.sql): a build recomputes only int_changed_subjects
    select * from subject_metric_stats
    where {{ wag_changed_subject_filter('subject_id') }}
),

metric_keys as (
    -- small integer keys for the metrics (joins and groups over integers, not VARCHARs)
    select metric_id, cast(row_number() over (order by metric_id) as smallint) as metric_key
    from metric_catalog
    where category <> 'Demographic'
),

subject_keys as (
    select dataset, subject_id, {{ wag_group_key(['dataset', 'subject_id']) }} as subject_key
    from stats
    group by dataset, subject_id
),

binned as (
    -- quantile bins by rank: bin = 1 + floor(bins * (rank - 1) / n), so tied values share a bin
    -- (a constant metric is one bin and adds no information); equals ntile() when there are no ties
    select
        k.subject_key,
        m.metric_key,
        v.day,
        cast(least({{ var('mi_bins') }}, 1 + floor({{ var('mi_bins') }} * (
            rank() over (partition by k.subject_key, m.metric_key order by v.value) - 1
        ) / count(*) over (partition by k.subject_key, m.metric_key))) as tinyint) as bin
    from metric_values as v
    inner join metric_keys as m on m.metric_id = v.metric_id
    inner join subject_keys as k on k.dataset = v.dataset and k.subject_id = v.subject_id
    where v.value is not null and {{ wag_changed_subject_filter('v.subject_id') }}
),

pair_mi as (
    -- plug-in MI per metric pair on its paired days (macro wag_pair_mutual_information)
    {{ wag_pair_mutual_information('binned', var('mi_min_pairs')) }}
),

mi_by_subject as (
    select k.dataset, k.subject_id, sum(p.mi) as mi_s, count(*) as n_mi_pairs
    from pair_mi as p
    inner join subject_keys as k using (subject_key)
    group by k.dataset, k.subject_id
)

select
    s.dataset,
    s.subject_id,
    min(s.first_day)                                           as first_day,
    max(s.last_day)                                            as last_day,
    cast({{ wag_days_between_count('min(s.first_day)', 'max(s.last_day)') }} as integer) as vl_s,
    count(*)                                                   as n_metrics,
    count(*) filter (where s.n_days > 0)                       as n_metrics_with_data,
    avg(s.missing_fraction)                                    as md_s,
    sum(s.cv)                                                  as cv_s,
    any_value(m.mi_s)                                          as mi_s,
    coalesce(any_value(m.n_mi_pairs), 0)                       as n_mi_pairs
from stats as s
left join mi_by_subject as m using (dataset, subject_id)
group by s.dataset, s.subject_id
