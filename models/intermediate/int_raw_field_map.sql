-- Union of the per-dataset field-map seeds (seeds/raw_field_map/): which raw field becomes which
-- catalog metric, and the linear unit conversion  catalog_value = raw_value * scale + offset  (DESIGN.md §2).
{%- set datasets = ['pmdata', 'lifesnaps', 'globem', 'ifh_affect', 'apple_health', 'fitbit', 'oura'] %}
{% for d in datasets %}
select
    cast(dataset as string)    as dataset,
    cast(raw_field as string)  as raw_field,
    cast(metric_id as string)  as metric_id,
    cast(scale as double)       as scale,
    cast({{ wag_q('offset') }} as double)    as value_offset,
    cast(note as string)       as note
from {{ ref('raw_field_map_' ~ d) }}
{% if not loop.last %}union all{% endif %}
{% endfor %}
