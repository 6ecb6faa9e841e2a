{#-
  Apple Health record types and units that no reader maps (issue 28): counted, not errors.
  Input : stg_apple_health__records, seed apple_health_types.
  Output: one row per (subject_id, record_type, unit): n_records. Sleep analysis records are read by
          stg_apple_health__sleep and not listed. `wag build` prints the counts per type.
-#}
with records as (
    select * from {{ ref('stg_apple_health__records') }}
),

types as (
    select * from {{ ref('apple_health_types') }}
)

select
    r.subject_id,
    r.record_type,
    r.unit,
    cast(count(*) as bigint) as n_records
from records as r
left join types as t on t.record_type = r.record_type and t.unit = r.unit
where t.record_type is null
  and coalesce(r.record_type, '') <> 'HKCategoryTypeIdentifierSleepAnalysis'
group by r.subject_id, r.record_type, r.unit
