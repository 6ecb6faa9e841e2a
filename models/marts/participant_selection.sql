-- Participant selection (DESIGN.md §3): subjects with md_s <= var('max_missing') and
-- vl_s >= var('min_days') are eligible; eligible subjects are split into deciles of cv_s per dataset
-- and picked round-robin across deciles, in a seeded pseudo-random order within each decile
-- (md5 of subject_id and var('selection_seed')), up to var('n_subjects_per_dataset') per dataset.
with subject_summary as (
    select * from {{ ref('subject_summary') }}
),

summary as (
    select
        *,
        coalesce(md_s <= {{ var('max_missing') }} and vl_s >= {{ var('min_days') }}, false) as is_eligible
    from subject_summary
),

deciles as (
    select
        dataset,
        subject_id,
        ntile(10) over (partition by dataset order by cv_s nulls first, subject_id) as cv_decile
    from summary
    where is_eligible
),

ordered as (
    select
        *,
        row_number() over (
            partition by dataset, cv_decile
            order by md5(subject_id || ':' || '{{ var("selection_seed") }}')
        ) as rank_in_decile
    from deciles
),

picked as (
    select
        *,
        row_number() over (partition by dataset order by rank_in_decile, cv_decile) as pick_order
    from ordered
)

select
    s.dataset,
    s.subject_id,
    s.md_s,
    s.vl_s,
    s.cv_s,
    s.is_eligible,
    case
        when s.md_s > {{ var('max_missing') }} then 'md_s above max_missing'
        when s.vl_s < {{ var('min_days') }} then 'vl_s below min_days'
    end                                                       as ineligible_reason,
    p.cv_decile,
    p.pick_order,
    coalesce(p.pick_order <= {{ var('n_subjects_per_dataset') }}, false) as is_selected
from summary as s
left join picked as p using (dataset, subject_id)
