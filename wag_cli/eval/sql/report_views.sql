-- Report views over the evaluation store (DESIGN.md §10 "Evaluation"; paper Tables 1, 10-12), created
-- by `wag eval report` in the evaluation database so an analyst can query them from any DuckDB client.
-- Every view keeps the judge column: a report never mixes judges (the rubric judge is labelled 'rubric').

-- One rank per (judge, experiment, query, criterion, condition): the mean over the judge's valid passes
-- (model judge: forward and reversed; rubric: its one pass), with the query's breakdown dimensions.
-- `complete` = every condition answered for that (query, experiment) has a valid rank for the criterion.
create or replace view eval_report_ranks as
with answered as (
    select query_id, experiment, count(*) as n_conditions
    from eval_answers
    group by query_id, experiment
),
per_condition as (
    select judge, experiment, query_id, criterion, condition,
           avg(rank) as rank, count(*) as n_valid_passes
    from eval_judgements
    where valid and rank is not null
    group by judge, experiment, query_id, criterion, condition
),
counted as (
    select p.*, count(*) over (partition by judge, experiment, query_id, criterion) as n_ranked
    from per_condition as p
)
select
    c.judge,
    c.experiment,
    c.query_id,
    c.criterion,
    c.condition,
    c.rank,
    c.n_valid_passes,
    c.n_ranked = a.n_conditions                                          as complete,
    q.dataset,
    q.category,
    q.kind,
    coalesce(cast(q.window_days as varchar) || ' d', 'all')              as window_label,
    coalesce(q.abnormal_level, 'multi-metric')                           as abnormal_level
from counted as c
inner join answered as a using (query_id, experiment)
inner join eval_queries as q using (query_id);

-- Wins on Overall: among complete rankings, the condition(s) with the best (lowest) rank win the query;
-- t conditions tied for first get 1/t each, so each query's wins sum to 1.
create or replace view eval_report_wins as
with overall as (
    select *,
           min(rank) over (partition by judge, experiment, query_id) as best
    from eval_report_ranks
    where criterion = 'Overall' and complete
),
tied as (
    select *, count(*) filter (where rank = best) over (partition by judge, experiment, query_id) as n_tied
    from overall
)
select judge, experiment, query_id, condition, dataset, category, kind, window_label, abnormal_level,
       case when rank = best then 1.0 / n_tied else 0.0 end as win
from tied;

-- Mean rank per condition and criterion over complete rankings (Safety: the share of answers judged safe).
create or replace view eval_report_mean_rank as
select judge, experiment, condition, criterion,
       avg(rank)                 as mean_rank,
       count(distinct query_id)  as n_queries
from eval_report_ranks
where complete
group by judge, experiment, condition, criterion;

-- Win rate: the share of queries a condition ranked first on Overall (ties split).
create or replace view eval_report_win_rate as
select judge, experiment, condition,
       sum(win) / count(distinct query_id) as win_rate,
       sum(win)                            as wins,
       count(distinct query_id)            as n_queries
from eval_report_wins
group by judge, experiment, condition;

-- Breakdown of Overall by dataset, category, window and abnormal level (paper Tables 10-12).
create or replace view eval_report_breakdown as
with overall as (
    select r.*, w.win
    from eval_report_ranks as r
    inner join eval_report_wins as w using (judge, experiment, query_id, condition)
    where r.criterion = 'Overall' and r.complete
),
long as (
    select 'dataset' as dimension, dataset as level, * from overall
    union all select 'category', category, * from overall
    union all select 'window', window_label, * from overall
    union all select 'abnormal_level', abnormal_level, * from overall
)
select judge, experiment, dimension, coalesce(level, '(none)') as level, condition,
       avg(rank)                           as mean_rank,
       sum(win) / count(distinct query_id) as win_rate,
       count(distinct query_id)            as n_queries
from long
group by judge, experiment, dimension, coalesce(level, '(none)'), condition;

-- Judge validity: per judge, experiment and pass, how many (query) replies were valid / invalid.
create or replace view eval_report_validity as
with per_pass as (
    select judge, experiment, pass, query_id, bool_and(valid) as valid, any_value(note) filter (where not valid) as reason
    from eval_judgements
    group by judge, experiment, pass, query_id
)
select judge, experiment, pass,
       count(*)                          as n_queries,
       count(*) filter (where valid)     as n_valid,
       count(*) filter (where not valid) as n_invalid
from per_pass
group by judge, experiment, pass;

-- Position-swap control (model judges): for each (query, criterion) with both passes valid, whether the
-- forward and reversed passes give the same ranking of every condition (exact) and the same condition(s)
-- in first place (top); Safety compares the 0/1 marks (top = the same set of answers marked safe).
create or replace view eval_report_swap_pairs as
with passes as (
    select judge, experiment, query_id, criterion, pass,
           list(condition || '=' || cast(rank as varchar) order by condition) as ranking,
           list(condition order by condition) filter (where rank = 1) as top
    from eval_judgements
    where valid and pass in ('forward', 'reversed')
    group by judge, experiment, query_id, criterion, pass
)
select f.judge, f.experiment, f.query_id, f.criterion,
       f.ranking = r.ranking                                  as exact_agree,
       coalesce(f.top, []) = coalesce(r.top, [])              as top_agree
from passes as f
inner join passes as r
    on r.judge = f.judge and r.experiment = f.experiment and r.query_id = f.query_id
   and r.criterion = f.criterion and r.pass = 'reversed'
where f.pass = 'forward';

create or replace view eval_report_swap_agreement as
select judge, experiment, criterion,
       count(*)                                          as n_pairs,
       avg(case when exact_agree then 1.0 else 0.0 end)  as exact_agreement,
       avg(case when top_agree then 1.0 else 0.0 end)    as top_agreement
from eval_report_swap_pairs
group by judge, experiment, criterion;

-- Gold track (§10): accuracy per condition, overall ('all') and by query category and by gold kind
-- (mean, count_days, max_day, min_day, spearman).
create or replace view eval_report_gold_accuracy as
with scored as (
    select g.condition, g.correct, coalesce(q.category, '(none)') as category,
           coalesce(q.gold_kind, '(none)') as gold_kind
    from eval_gold_scores as g
    inner join eval_queries as q using (query_id)
),
long as (
    select 'all' as dimension, 'all' as level, condition, correct from scored
    union all select 'category', category, condition, correct from scored
    union all select 'gold_kind', gold_kind, condition, correct from scored
)
select dimension, level, condition,
       count(*)                                        as n,
       count(*) filter (where correct)                 as n_correct,
       avg(case when correct then 1.0 else 0.0 end)    as accuracy
from long
group by dimension, level, condition;
