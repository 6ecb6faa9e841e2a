-- Observations that did not enter metric_values and why (unknown metric, NaN, outside physical bounds).
with int_metric_values__checked as (
    select * from {{ ref('int_metric_values__checked') }}
)

select dataset, subject_id, metric_id, day, value, value_text, raw_fields, rejection_reason
from int_metric_values__checked
where rejection_reason is not null
