-- A subject's dataset and first/last day with data. Parameter: $subject.
select dataset, min(day) as first_day, max(day) as last_day, count(*) as n_rows
from metric_values
where subject_id = $subject
group by dataset
