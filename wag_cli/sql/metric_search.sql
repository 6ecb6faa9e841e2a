-- Catalog search for `wag mcp` list_metrics: the graph's nodes whose id, name, aliases or category
-- contain every word of $words (lower-case; an empty list matches every node), with the unit, the
-- datasets with data and how each dataset measures the metric (metric_sources). Ordered by category,
-- then id.
select
    n.metric_id,
    n.name,
    n.category,
    n.unit,
    n.data_kind,
    n.aliases,
    n.description,
    n.datasets_with_data,
    n.n_subjects_with_data,
    coalesce(
        list({'dataset': s.dataset, 'measurement': s.measurement} order by s.dataset)
            filter (where s.dataset is not null),
        []
    ) as measured_in
from nodes as n
left join metric_sources as s using (metric_id)
where len(list_filter($words, lambda w: not contains(
        lower(concat_ws(' ', n.metric_id, replace(n.metric_id, '_', ' '), n.name, n.aliases, n.category)), w))) = 0
group by all
order by n.category, n.metric_id
