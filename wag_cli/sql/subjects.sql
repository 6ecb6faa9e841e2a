-- One row per subject: days with measured data, metrics with data, date range, selection flag
-- (DESIGN.md §3). Days and the date range count measured metrics only (profile rows such as age or
-- BMI, catalog category 'Demographic', repeat on every day of some exports), as subject_period.sql.
select
    v.subject_id,
    v.dataset,
    count(distinct v.day) filter (where c.category is distinct from 'Demographic') as n_days,
    count(distinct v.metric_id)  as n_metrics,
    coalesce(min(v.day) filter (where c.category is distinct from 'Demographic'), min(v.day)) as first_day,
    coalesce(max(v.day) filter (where c.category is distinct from 'Demographic'), max(v.day)) as last_day,
    coalesce(any_value(p.is_selected), false) as is_selected
from metric_values as v
left join metric_catalog as c using (metric_id)
left join participant_selection as p using (dataset, subject_id)
group by v.subject_id, v.dataset
order by v.dataset, v.subject_id
