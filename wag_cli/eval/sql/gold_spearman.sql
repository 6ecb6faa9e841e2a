-- Gold track (DESIGN.md §10, §5): Spearman's rho between two metrics of one subject over a window,
-- on the paired days where both have a value, with average ranks for ties (rank() + (ties - 1) / 2,
-- as scipy.stats.spearmanr). Parameters: $subject, $metric_x, $metric_y, $ref_day, $window_days
-- (NULL = every day <= $ref_day). Returns rho, n_pairs and the distinct values of each series (a
-- constant series has no correlation: the caller skips it, as §5's validity rule).
with pairs as (
    select x.day, x.value as x, y.value as y
    from metric_values as x
    inner join metric_values as y
        on y.subject_id = x.subject_id and y.day = x.day and y.metric_id = $metric_y
    where x.subject_id = $subject
      and x.metric_id = $metric_x
      and x.value is not null
      and y.value is not null
      and x.day <= $ref_day
      and ($window_days is null or x.day >= $ref_day - cast($window_days - 1 as integer))
),

ranked as (
    select
        x,
        y,
        rank() over (order by x) + (count(*) over (partition by x) - 1) / 2.0 as rank_x,
        rank() over (order by y) + (count(*) over (partition by y) - 1) / 2.0 as rank_y
    from pairs
)

select
    corr(rank_x, rank_y)  as rho,
    count(*)              as n_pairs,
    count(distinct x)     as n_distinct_x,
    count(distinct y)     as n_distinct_y
from ranked
