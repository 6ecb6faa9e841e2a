-- How the given metrics are measured in one dataset (marts.metric_sources). Parameters: $dataset, $metrics.
select metric_id, measurement
from metric_sources
where dataset = $dataset and metric_id in (select unnest($metrics))
