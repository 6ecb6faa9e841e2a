-- Trend of each metric over a period (DESIGN.md §8, Trend Analysis): the Theil-Sen slope (median of
-- the pairwise slopes of the period's daily values, x = days since the period start) with Sen's
-- confidence interval as scipy.stats.theilslopes computes it (confidence 0.95, normal approximation
-- with Sen (1968) eq. 2.6 tie correction, indices rounded half to even like numpy), converted to
-- units per week, and the mean of the first vs the second half of the period.
-- Parameters: $subject, $metrics (VARCHAR[]), $start (DATE, NULL = the metric's first day <= $end),
-- $end (DATE). One row per metric with at least one value in the period.
-- Columns: metric_id, period_start, period_end, n_days, slope_per_day, slope_per_week,
-- low_per_week, high_per_week, intercept (value at period_start), direction ('up' | 'down' | 'flat':
-- 'flat' when the interval contains 0, NULL with < 3 days), half_days, first_half_end,
-- second_half_start, first_half_mean, first_half_days, second_half_mean, second_half_days.
with
raw as (
    select metric_id, day, value
    from metric_values
    where subject_id = $subject
      and metric_id in (select unnest($metrics))
      and value is not null
      and day <= $end
      and ($start is null or day >= $start)
),
bounds as (
    select metric_id, coalesce($start, min(day)) as period_start, cast($end as date) as period_end,
           date_diff('day', coalesce($start, min(day)), $end) + 1 as k
    from raw
    group by metric_id
),
pts as (
    select r.metric_id, cast(date_diff('day', b.period_start, r.day) as double) as x, r.value as y
    from raw as r
    inner join bounds as b using (metric_id)
),
slopes as (
    select a.metric_id, (a.y - b.y) / (a.x - b.x) as s
    from pts as a
    inner join pts as b on a.metric_id = b.metric_id and a.x > b.x
),
ranked as (
    select metric_id, s,
           row_number() over (partition by metric_id order by s) - 1 as idx,
           count(*) over (partition by metric_id) as nt
    from slopes
),
y_ties as (
    -- sum over groups of tied values of k (k - 1) (2k + 5); x has no ties (one value per day)
    select metric_id, sum(k * (k - 1) * (2 * k + 5)) as tie_term
    from (select metric_id, y, count(*) as k from pts group by metric_id, y having count(*) > 1) as t
    group by metric_id
),
fit as (
    select
        p.metric_id,
        count(*)                                                   as n_days,
        any_value(m.med)                                           as slope_per_day
    from pts as p
    left join (select metric_id, median(s) as med from slopes group by metric_id) as m using (metric_id)
    group by p.metric_id
),
interval_idx as (
    select
        f.metric_id,
        r.nt,
        -- sigma^2 = (n (n - 1) (2n + 5) - ties) / 18;  z = norm.ppf(0.025)
        sqrt((f.n_days * (f.n_days - 1) * (2 * f.n_days + 5) - coalesce(t.tie_term, 0)) / 18.0) as sigma
    from fit as f
    inner join (select distinct metric_id, nt from ranked) as r using (metric_id)
    left join y_ties as t using (metric_id)
),
ci as (
    select
        i.metric_id,
        min(r.s) filter (where r.idx = greatest(cast(round_even((i.nt + (-1.959963984540054) * i.sigma) / 2.0, 0) as bigint) - 1, 0)) as low,
        min(r.s) filter (where r.idx = least(cast(round_even((i.nt - (-1.959963984540054) * i.sigma) / 2.0, 0) as bigint), i.nt - 1)) as high
    from interval_idx as i
    inner join ranked as r using (metric_id)
    group by i.metric_id
),
intercepts as (
    -- scipy's default method 'separate': median(y) - slope * median(x)
    select p.metric_id, median(p.y) - any_value(f.slope_per_day) * median(p.x) as intercept
    from pts as p
    inner join fit as f using (metric_id)
    group by p.metric_id
),
halves as (
    -- first half = the period's first floor(k / 2) days, second half = its last floor(k / 2) days
    select
        p.metric_id,
        avg(p.y) filter (where p.x < floor(b.k / 2))           as first_half_mean,
        count(*) filter (where p.x < floor(b.k / 2))           as first_half_days,
        avg(p.y) filter (where p.x >= b.k - floor(b.k / 2))    as second_half_mean,
        count(*) filter (where p.x >= b.k - floor(b.k / 2))    as second_half_days
    from pts as p
    inner join bounds as b using (metric_id)
    group by p.metric_id
)
select
    f.metric_id,
    b.period_start,
    b.period_end,
    f.n_days,
    f.slope_per_day,
    7 * f.slope_per_day                                  as slope_per_week,
    7 * c.low                                            as low_per_week,
    7 * c.high                                           as high_per_week,
    i.intercept,
    case when f.n_days < 3 or c.low is null then null
         when c.low > 0 then 'up'
         when c.high < 0 then 'down'
         else 'flat' end                                 as direction,
    cast(floor(b.k / 2) as integer)                      as half_days,
    cast(b.period_start + cast(floor(b.k / 2) - 1 as integer) as date)      as first_half_end,
    cast(b.period_end - cast(floor(b.k / 2) - 1 as integer) as date)        as second_half_start,
    h.first_half_mean,
    h.first_half_days,
    h.second_half_mean,
    h.second_half_days
from fit as f
inner join bounds as b using (metric_id)
left join ci as c using (metric_id)
left join intercepts as i using (metric_id)
left join halves as h using (metric_id)
order by f.metric_id
