-- Names a rubric-judged answer may use for a metric (DESIGN.md §9 node catalog): id, name and the
-- catalog's aliases ('|'-separated). Parameter: $metrics (VARCHAR[]). Output: metric_id, name, aliases.
select n.metric_id, n.name, n.aliases, n.unit
from nodes as n
where list_contains($metrics, n.metric_id)
order by n.metric_id
