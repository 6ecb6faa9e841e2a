-- One row per subject: days with any data, metrics with data, date range, selection flag (DESIGN.md §3).
select
    v.subject_id,
    v.dataset,
    count(distinct v.day)        as n_days,
    count(distinct v.metric_id)  as n_metrics,
    min(v.day)                   as first_day,
    max(v.day)                   as last_day,
    coalesce(any_value(p.is_selected), false) as is_selected
from metric_values as v
left join participant_selection as p using (dataset, subject_id)
group by v.subject_id, v.dataset
order by v.dataset, v.subject_id
