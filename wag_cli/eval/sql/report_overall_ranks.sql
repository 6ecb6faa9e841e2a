-- Complete Overall rankings of one judge and experiment, for the Friedman test (DESIGN.md §10).
-- Parameters: $judge, $experiment. Output: query_id, condition, rank (mean over the judge's valid passes).
select query_id, condition, rank
from eval_report_ranks
where judge = $judge and experiment = $experiment and criterion = 'Overall' and complete
order by query_id, condition
