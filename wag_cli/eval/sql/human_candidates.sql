-- Queries of one experiment that can be shown to human raters (DESIGN.md §10 "Human evaluation").
-- Parameters: $experiment. A candidate is a non-gold query answered (answer text stored, not a failed
-- condition) by every condition stored for the experiment, and by at least two of them, so every
-- sampled query shows raters the same set of conditions. Output: query_id, conditions (sorted), and
-- n_conditions = how many conditions the experiment has stored.
with stored_conditions as (
    select distinct condition
    from eval_answers
    where experiment = $experiment
),
answered as (
    select a.query_id, list(a.condition order by a.condition) as conditions, count(*) as n
    from eval_answers as a
    inner join eval_queries as q using (query_id)
    where a.experiment = $experiment
      and a.answer is not null
      and coalesce(a.source, '') <> 'error'
      and coalesce(q.kind, '') <> 'gold'
    group by a.query_id
)
select query_id, conditions, (select count(*) from stored_conditions) as n_conditions
from answered
where n = (select count(*) from stored_conditions) and n >= 2
order by query_id
