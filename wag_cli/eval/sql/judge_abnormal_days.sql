-- The subject's most abnormal days in the query window, for the rubric judge's Personalization rule
-- (DESIGN.md §10; |z| as in §4, no look-ahead): the top days against the usual level over days <= t^q
-- and the top days against the usual level before the window (both baselines an answer may use).
-- Parameters: $subject, $ref_day (DATE), $window_days (INTEGER; NULL = every day <= t^q), $metrics
-- (VARCHAR[]), $top (INTEGER: days kept per metric). Output: metric_id, day, abs_z (largest first).
with history as (
    select v.metric_id, v.day, v.value
    from metric_values as v
    where v.subject_id = $subject and v.day <= $ref_day and v.value is not null
      and list_contains($metrics, v.metric_id)
),

usual as (
    select metric_id, avg(value) as usual_mean, stddev_samp(value) as usual_sd
    from history
    group by metric_id
),

usual_before as (
    select metric_id, avg(value) as usual_mean, stddev_samp(value) as usual_sd
    from history
    where $window_days is not null and date_diff('day', day, $ref_day) >= $window_days
    group by metric_id
),

in_window as (
    select * from history
    where $window_days is null or date_diff('day', day, $ref_day) < $window_days
),

scored as (
    select w.metric_id, w.day, abs(w.value - u.usual_mean) / u.usual_sd as abs_z, 'all' as baseline
    from in_window as w inner join usual as u using (metric_id)
    where u.usual_sd > 0
    union all
    select w.metric_id, w.day, abs(w.value - b.usual_mean) / b.usual_sd, 'before'
    from in_window as w inner join usual_before as b using (metric_id)
    where b.usual_sd > 0
),

ranked as (
    select *, row_number() over (partition by metric_id, baseline order by abs_z desc, day desc) as n
    from scored
)

select metric_id, day, max(abs_z) as abs_z
from ranked
where n <= $top
group by metric_id, day
order by metric_id, abs_z desc
