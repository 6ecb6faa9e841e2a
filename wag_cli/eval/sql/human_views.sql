-- Human-evaluation views over the evaluation store (DESIGN.md §10 "Human evaluation"; paper Tables 2,
-- 21, 22), created by `wag eval report` after the judges' eval_report_* views (report_views.sql), so an
-- analyst can query the same figures. Ranks: 1 = best, a permutation of 1..k per (query, rater, criterion).

-- Each rater's mean rank per condition and criterion.
create or replace view eval_human_mean_rank as
select experiment, criterion, rater, condition,
       avg(rank)                 as mean_rank,
       count(distinct query_id)  as n_queries
from eval_human_rankings
group by experiment, criterion, rater, condition;

-- The mean human rank of each (query, condition): the average over the raters who ranked that query.
create or replace view eval_human_pair_rank as
select experiment, criterion, query_id, condition,
       avg(rank)  as human_rank,
       count(*)   as n_raters
from eval_human_rankings
group by experiment, criterion, query_id, condition;

-- The human average: the mean over queries of the mean human rank.
create or replace view eval_human_avg_mean_rank as
select experiment, criterion, condition,
       avg(human_rank)           as mean_rank,
       count(distinct query_id)  as n_queries
from eval_human_pair_rank
group by experiment, criterion, condition;

-- (query, condition) pairs ranked by the humans and completely by a judge (eval_report_ranks: the mean
-- over the judge's valid passes), for the judge's mean rank on the same queries and the Spearman
-- correlation between the mean human rank and the judge's rank.
create or replace view eval_human_judge_pairs as
select r.judge, h.experiment, h.criterion, h.query_id, h.condition, h.human_rank, h.n_raters,
       r.rank as judge_rank
from eval_human_pair_rank as h
inner join eval_report_ranks as r
    on r.experiment = h.experiment and r.query_id = h.query_id
   and r.criterion = h.criterion and r.condition = h.condition
where r.complete;

-- Each judge's mean rank per condition over the queries the humans ranked.
create or replace view eval_human_judge_mean_rank as
select judge, experiment, criterion, condition,
       avg(judge_rank)           as mean_rank,
       count(distinct query_id)  as n_queries
from eval_human_judge_pairs
group by judge, experiment, criterion, condition;
