-- One fingerprint per (dataset, subject, month) of the subject's metric_values rows (issue 10,
-- incremental refresh): the XOR of a 64-bit hash of every row (metric, day, value, text) and the row
-- count. Rows are unique per (dataset, subject_id, metric_id, day), so equal fingerprints mean equal
-- rows up to a 64-bit hash collision. month_end = the month's last day (the snapshot days of
-- correlations_population_snapshots are month-ends).
with metric_values as (
    select * from {{ ref('metric_values') }}
)

select
    dataset,
    subject_id,
    last_day(day)                                                           as month_end,
    bit_xor({{ wag_group_key(['metric_id', 'day', 'value', 'value_text']) }}) as fingerprint,
    count(*)                                                                as n_rows
from metric_values
group by dataset, subject_id, last_day(day)
