-- One 64-bit key per subject (wag_group_key of the dataset-qualified subject_id): the paired table and
-- the Spearman windows carry it instead of the subject's name. A hash, not a row number, so a
-- subject's key does not change when other subjects are added (incremental builds keep it).
-- Grain: one row per (dataset, subject_id) with a numeric value in metric_values.
with metric_values as (
    select * from {{ ref('metric_values') }}
)

select
    dataset,
    subject_id,
    {{ wag_group_key(['subject_id']) }} as subject_key
from metric_values
where value is not null
group by dataset, subject_id
