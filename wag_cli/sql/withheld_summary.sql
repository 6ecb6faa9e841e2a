-- Values withheld from metric_values by the last build (marts.metric_values_rejected: non-wear days,
-- impossible values, text in a numeric metric), counted per dataset and reason kind (the reason's
-- text before its first colon, e.g. "non-wear day").
select
    dataset,
    split_part(rejection_reason, ':', 1) as reason_kind,
    count(*) as n_values
from metric_values_rejected
group by dataset, reason_kind
order by dataset, n_values desc, reason_kind
