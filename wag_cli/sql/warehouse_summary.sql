-- Per-dataset summary of metric_values: subjects, metrics, distinct days, rows, date range.
select
    dataset,
    count(distinct subject_id)  as n_subjects,
    count(distinct metric_id)   as n_metrics,
    count(distinct day)         as n_days,
    count(*)                    as n_rows,
    min(day)                    as first_day,
    max(day)                    as last_day
from metric_values
group by dataset
order by dataset
