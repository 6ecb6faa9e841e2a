-- What `wag build` says about each Apple Health export (issue 28): the file, its status, records,
-- what happened to its DTD and the external entities it declared (never read), and the record types
-- no reader maps (counted, not errors). No parameters; empty when no export was read.
with files as (
    select subject_id, any_value(file) as file, any_value(status) as status, any_value(records) as records,
           any_value(doctype) as doctype, any_value(external_entities) as external_entities,
           any_value(skipped_entity_refs) as skipped_entity_refs, any_value(note) as note
    from stg_apple_health__files
    group by subject_id
),

unmapped as (
    select subject_id, string_agg(record_type || coalesce(' [' || unit || ']', '') || ' ' || n_records, '; '
                                  order by n_records desc, record_type) as unmapped_types
    from stg_apple_health__unmapped_types
    group by subject_id
)

select f.*, u.unmapped_types
from files as f
left join unmapped as u using (subject_id)
order by f.subject_id
