-- One sampled query as a rater sees it (DESIGN.md §10 "Human evaluation"): the question, the person's
-- context line (subject, dataset, reference day, window) and every shown condition's answer.
-- Parameters: $experiment, $query_id. One row per shown condition.
select s.experiment, s.query_id, s.sample_order, q.question, q.subject_id, q.dataset, q.reference_day,
       q.window_days, a.condition, a.answer
from eval_human_sample as s
inner join eval_queries as q using (query_id)
inner join eval_answers as a
    on a.query_id = s.query_id and a.experiment = s.experiment and list_contains(s.conditions, a.condition)
where s.experiment = $experiment and s.query_id = $query_id
order by a.condition
