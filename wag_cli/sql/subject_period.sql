-- A subject's dataset and first/last day with data. Parameter: $subject.
-- last_day counts measured metrics only: profile rows (age, BMI, gender: catalog category
-- 'Demographic') are repeated on every day of some exports and would move the default reference day
-- past the last measurement; a subject with profile rows only keeps their last day.
select
    v.dataset,
    min(v.day) as first_day,
    coalesce(max(v.day) filter (where c.category is distinct from 'Demographic'), max(v.day)) as last_day,
    count(*) as n_rows
from metric_values as v
left join metric_catalog as c using (metric_id)
where v.subject_id = $subject
group by v.dataset
