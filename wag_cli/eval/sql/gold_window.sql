-- Gold track (DESIGN.md §10): exact statistics of one metric of one subject over a window, from
-- metric_values. Parameters: $subject, $metric, $ref_day, $window_days (NULL = every day <= $ref_day).
-- The window is the calendar days [$ref_day - $window_days + 1, $ref_day]; only days with a value count.
-- Returns one row: mean_value, n_days, max_value, min_value, max_days and min_days (every day that
-- reaches the extreme, ascending: ties are all correct answers), first_day (start of the window or of
-- the data).
with in_window as (
    select day, value
    from metric_values
    where subject_id = $subject
      and metric_id = $metric
      and value is not null
      and day <= $ref_day
      and ($window_days is null or day >= $ref_day - cast($window_days - 1 as integer))
),

extremes as (
    select max(value) as max_value, min(value) as min_value from in_window
)

select
    avg(w.value)                                                   as mean_value,
    count(*)                                                       as n_days,
    max(e.max_value)                                               as max_value,
    max(e.min_value)                                               as min_value,
    list(w.day order by w.day) filter (where w.value = e.max_value) as max_days,
    list(w.day order by w.day) filter (where w.value = e.min_value) as min_days,
    min(w.day)                                                     as first_day
from in_window as w
cross join extremes as e
