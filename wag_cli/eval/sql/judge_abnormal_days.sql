-- The subject's most abnormal days in the query window, for the rubric judge's Personalization rule
-- (DESIGN.md §10; |z| as in §4, mean and sample sd over the subject's days <= t^q, no look-ahead).
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

scored as (
    select h.metric_id, h.day, abs(h.value - u.usual_mean) / u.usual_sd as abs_z
    from history as h
    inner join usual as u using (metric_id)
    where u.usual_sd > 0
      and ($window_days is null or date_diff('day', h.day, $ref_day) < $window_days)
)

select metric_id, day, abs_z
from scored
qualify row_number() over (partition by metric_id order by abs_z desc, day desc) <= $top
order by metric_id, abs_z desc
