-- Metric columns of the wide sources that resolve to no node (models/staging/wide), for
-- `wag graph add-metrics --from-unmapped` (issue 11 item 2). No parameters.
select dataset, column_name, n_values
from stg_wide__unmapped_columns
where column_name is not null
order by dataset, column_name
