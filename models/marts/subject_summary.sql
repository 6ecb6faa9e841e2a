-- Per-subject summary used for participant selection (DESIGN.md §3).
--   md_s  = mean over metrics of missing_fraction          (MD_s)
--   vl_s  = max(T_s) - min(T_s) in days                      (VL_s)
--   cv_s  = sum over metrics of CV_{s,m} (NULL CVs skipped)  (CV_s)
--   mi_s  = sum over metric pairs of the plug-in mutual information, in nats   (MI_s):
--           each time-varying metric is cut into var('mi_bins') quantile bins over the subject's
--           days (by rank, so tied values share a bin and a constant metric carries no
--           information); the joint and the marginals are counted on the pair's paired days;
--           pairs with fewer than var('mi_min_pairs') paired days are skipped.
with stats as (
    select * from {{ ref('subject_metric_stats') }}
),

binned as (
    -- quantile bins by rank: bin = 1 + floor(bins * (rank - 1) / n), so tied values share a bin
    -- (a constant metric is one bin and adds no information); equals ntile() when there are no ties
    select
        v.dataset,
        v.subject_id,
        v.metric_id,
        v.day,
        least({{ var('mi_bins') }}, 1 + floor({{ var('mi_bins') }} * (
            rank() over (partition by v.dataset, v.subject_id, v.metric_id order by v.value) - 1
        ) / count(*) over (partition by v.dataset, v.subject_id, v.metric_id))) as bin
    from {{ ref('metric_values') }} as v
    inner join {{ ref('metric_catalog') }} as c on c.metric_id = v.metric_id
    where v.value is not null and c.category <> 'Demographic'
),

paired as (
    select
        a.dataset,
        a.subject_id,
        a.metric_id as metric_x,
        b.metric_id as metric_y,
        a.bin       as bin_x,
        b.bin       as bin_y,
        count(*) over (partition by a.dataset, a.subject_id, a.metric_id, b.metric_id) as n_pair
    from binned as a
    inner join binned as b
        on b.dataset = a.dataset and b.subject_id = a.subject_id and b.day = a.day
       and a.metric_id < b.metric_id
),

usable as (
    select * from paired where n_pair >= {{ var('mi_min_pairs') }}
),

joint as (
    select dataset, subject_id, metric_x, metric_y, bin_x, bin_y,
           count(*) as n_xy, any_value(n_pair) as n_pair
    from usable
    group by dataset, subject_id, metric_x, metric_y, bin_x, bin_y
),

marg_x as (
    select dataset, subject_id, metric_x, metric_y, bin_x, count(*) as n_x
    from usable group by dataset, subject_id, metric_x, metric_y, bin_x
),

marg_y as (
    select dataset, subject_id, metric_x, metric_y, bin_y, count(*) as n_y
    from usable group by dataset, subject_id, metric_x, metric_y, bin_y
),

pair_mi as (
    select
        j.dataset,
        j.subject_id,
        j.metric_x,
        j.metric_y,
        sum(j.n_xy / j.n_pair * ln(j.n_xy * j.n_pair / (mx.n_x * my.n_y))) as mi
    from joint as j
    inner join marg_x as mx using (dataset, subject_id, metric_x, metric_y, bin_x)
    inner join marg_y as my using (dataset, subject_id, metric_x, metric_y, bin_y)
    group by j.dataset, j.subject_id, j.metric_x, j.metric_y
),

mi_by_subject as (
    select dataset, subject_id, sum(mi) as mi_s, count(*) as n_mi_pairs
    from pair_mi group by dataset, subject_id
)

select
    s.dataset,
    s.subject_id,
    min(s.first_day)                                           as first_day,
    max(s.last_day)                                            as last_day,
    cast(date_diff('day', min(s.first_day), max(s.last_day)) as integer) as vl_s,
    count(*)                                                   as n_metrics,
    count(*) filter (where s.n_days > 0)                       as n_metrics_with_data,
    avg(s.missing_fraction)                                    as md_s,
    sum(s.cv)                                                  as cv_s,
    any_value(m.mi_s)                                          as mi_s,
    coalesce(any_value(m.n_mi_pairs), 0)                       as n_mi_pairs
from stats as s
left join mi_by_subject as m using (dataset, subject_id)
group by s.dataset, s.subject_id
