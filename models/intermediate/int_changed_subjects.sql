-- Subjects whose metric_values rows differ from the last complete run (issue 10, incremental refresh):
-- a (dataset, subject, month) fingerprint that is new, gone or different. On the first build (no
-- stored fingerprints: table wag_build_fingerprints, written by the on-run-end hook
-- wag_save_build_fingerprints) every subject is changed. Subject-level incremental models recompute
-- exactly these subjects; population snapshots from each dataset's first changed month-end on.
{%- set stored = none -%}
{%- if execute -%}
  {%- set stored = adapter.get_relation(database=this.database, schema=this.schema,
                                        identifier='wag_build_fingerprints') -%}
{%- endif %}
with int_subject_month_fingerprints as (
    select * from {{ ref('int_subject_month_fingerprints') }}
),

current_fingerprints as (
    select dataset, subject_id, month_end, fingerprint, n_rows
    from int_subject_month_fingerprints
),

stored_fingerprints as (
    {%- if stored is not none %}
    select dataset, subject_id, month_end, fingerprint, n_rows from {{ stored }}
    {%- else %}
    select * from current_fingerprints where false
    {%- endif %}
),

changed_months as (
    select
        coalesce(c.dataset, s.dataset)       as dataset,
        coalesce(c.subject_id, s.subject_id) as subject_id,
        coalesce(c.month_end, s.month_end)   as month_end
    from current_fingerprints as c
    full outer join stored_fingerprints as s
        on s.dataset = c.dataset and s.subject_id = c.subject_id and s.month_end = c.month_end
    where c.fingerprint is distinct from s.fingerprint or c.n_rows is distinct from s.n_rows
)

select
    dataset,
    subject_id,
    {{ wag_group_key(['subject_id']) }} as subject_key,
    min(month_end)                      as first_changed_month_end,
    count(*)                            as n_changed_months
from changed_months
group by dataset, subject_id
