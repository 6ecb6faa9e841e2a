-- Answers to judge, with their query's gold fields (DESIGN.md §10). Runs on the evaluation database.
-- Parameters: $experiments (VARCHAR[]: 'main', 'exp_g', 'exp_l'), $judge (VARCHAR), $redo (BOOLEAN:
-- include queries this judge already ranked). One row per (query, experiment, condition). Gold-track
-- queries (kind 'gold') are not judged: the gold track scores them against SQL (eval_gold_scores).
with judged as (
    select distinct query_id, experiment
    from eval_judgements
    where judge = $judge
)

select
    a.query_id,
    a.experiment,
    a.condition,
    a.answer,
    cast(a.context as varchar) as context,
    a.error,
    q.kind,
    q.dataset,
    q.subject_id,
    q.metrics,
    q.reference_day,
    q.window_days,
    q.abnormal_level,
    q.category,
    q.openness,
    q.question
from eval_answers as a
inner join eval_queries as q using (query_id)
where list_contains($experiments, a.experiment)
  and coalesce(q.kind, '') <> 'gold'
  and ($redo or not exists (
        select 1 from judged as j where j.query_id = a.query_id and j.experiment = a.experiment))
order by a.query_id, a.experiment, a.condition
