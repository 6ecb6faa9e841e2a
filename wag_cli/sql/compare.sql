-- Two periods side by side (DESIGN.md §8, Comparative Insight): per metric, each period's days with
-- a value, mean, sample sd, min and max, and the difference of the means (a - b: the first period named minus the second),
-- with the pooled within-period sd and the difference in it (effect_size, Cohen's d).
-- A period is [start, end] (start NULL = from the first day on record) restricted to ISO days of
-- the week (1 = Monday .. 7 = Sunday; weekends = [6, 7]).
-- Parameters: $subject, $metrics (VARCHAR[]), $a_start, $a_end, $a_dows (INTEGER[]),
-- $b_start, $b_end, $b_dows. One row per metric in $metrics (also without data: n_days 0).
with
asked as (
    select distinct unnest($metrics) as metric_id
),
vals as (
    select v.metric_id, v.day, v.value
    from metric_values as v
    where v.subject_id = $subject
      and v.metric_id in (select metric_id from asked)
      and v.value is not null
),
tagged as (
    select metric_id, 'a' as side, value from vals
    where day <= $a_end and ($a_start is null or day >= $a_start) and isodow(day) in (select unnest($a_dows))
    union all
    select metric_id, 'b' as side, value from vals
    where day <= $b_end and ($b_start is null or day >= $b_start) and isodow(day) in (select unnest($b_dows))
),
stats as (
    select
        metric_id,
        count(*) filter (where side = 'a')            as a_days,
        avg(value) filter (where side = 'a')          as a_mean,
        stddev_samp(value) filter (where side = 'a')  as a_sd,
        min(value) filter (where side = 'a')          as a_min,
        max(value) filter (where side = 'a')          as a_max,
        count(*) filter (where side = 'b')            as b_days,
        avg(value) filter (where side = 'b')          as b_mean,
        stddev_samp(value) filter (where side = 'b')  as b_sd,
        min(value) filter (where side = 'b')          as b_min,
        max(value) filter (where side = 'b')          as b_max
    from tagged
    group by metric_id
),
pooled as (
    -- the within-period day-to-day SD of both periods pooled, and the difference in its units
    -- (Cohen's d): what "higher" / "about the same" is judged by. NULL below 2 days in a period.
    select
        *,
        case when a_days >= 2 and b_days >= 2 then
            sqrt(((a_days - 1) * a_sd * a_sd + (b_days - 1) * b_sd * b_sd) / (a_days + b_days - 2))
        end as pooled_sd
    from stats
)
select
    q.metric_id,
    coalesce(s.a_days, 0) as a_days, s.a_mean, s.a_sd, s.a_min, s.a_max,
    coalesce(s.b_days, 0) as b_days, s.b_mean, s.b_sd, s.b_min, s.b_max,
    s.a_mean - s.b_mean   as difference,
    s.pooled_sd,
    case when s.pooled_sd > 0 then (s.a_mean - s.b_mean) / s.pooled_sd end as effect_size
from asked as q
left join pooled as s using (metric_id)
order by q.metric_id
