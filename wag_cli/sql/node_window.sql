-- The subject's data for a set of nodes around a reference day (DESIGN.md §8 step 4).
-- Parameters: $subject, $metrics (VARCHAR[]), $ref_day (DATE), $window_days (INTEGER, NULL = all).
-- Usual level = mean and sample sd over all of the subject's days <= $ref_day (no look-ahead);
-- window = the calendar days [$ref_day - $window_days + 1, $ref_day] (every day <= $ref_day for 'all').
-- One row per metric in $metrics, also when it has no data (n_window_days = 0).
with wanted as (
    select distinct unnest($metrics) as metric_id
),
history as (
    select v.metric_id, v.day, v.value, v.value_text
    from metric_values as v
    where v.subject_id = $subject
      and v.day <= $ref_day
      and v.metric_id in (select metric_id from wanted)
),
usual as (
    select metric_id, avg(value) as usual_mean, stddev_samp(value) as usual_sd,
           count(value) as n_history_days, min(day) as first_day
    from history
    group by metric_id
),
in_window as (
    select h.*, u.usual_mean, u.usual_sd,
           case when u.usual_sd > 0 then abs(h.value - u.usual_mean) / u.usual_sd end as z
    from history as h
    join usual as u using (metric_id)
    where $window_days is null or date_diff('day', h.day, $ref_day) < $window_days
)
select
    w.metric_id,
    coalesce(u.n_history_days, 0)                                     as n_history_days,
    u.usual_mean,
    u.usual_sd,
    count(iw.day)                                                     as n_window_days,
    avg(iw.value)                                                     as window_mean,
    min(iw.value)                                                     as window_min,
    max(iw.value)                                                     as window_max,
    avg(iw.z)                                                         as zeta,
    list({'day': iw.day, 'value': iw.value, 'value_text': iw.value_text, 'z': iw.z} order by iw.day)
        filter (where iw.day is not null)                             as daily
from wanted as w
left join usual as u using (metric_id)
left join in_window as iw using (metric_id)
group by w.metric_id, u.n_history_days, u.usual_mean, u.usual_sd
order by w.metric_id
