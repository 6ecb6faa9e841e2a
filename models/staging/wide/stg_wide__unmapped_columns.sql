{#-
  Metric columns of the wide daily sources (var('wide_sources')) whose header resolves to no
  metric of ref('metric_catalog') — by metric_id, name or alias, case-insensitively, as in
  stg_wide__daily_metrics — so a user sees what was dropped and which alias to add to the catalog.
  One row per (dataset, column_name); n_values = non-empty cells of that column. Empty when every
  column resolves or when wide_sources = [].
-#}
{{ config(materialized='table') }}
{%- set sources = var('wide_sources', []) -%}
{%- if sources | length == 0 %}
select
    cast(null as string) as dataset,
    cast(null as string) as column_name,
    cast(null as bigint)  as n_values
where false
{%- else %}
with catalog as (
    select metric_id, name, aliases from {{ ref('metric_catalog') }}
),

catalog_keys as (
    select lower(trim(metric_id)) as match_key from catalog
    union
    select lower(trim(name)) from catalog where name is not null
    union
    select lower(trim(alias))
    from (select unnest(string_split(aliases, '|')) as alias from catalog where aliases is not null)
)

select
    c.dataset,
    c.column_name,
    count(nullif(trim(c.raw_value), '')) as n_values
from {{ ref('stg_wide__cells') }} as c
where lower(trim(c.column_name)) not in (select match_key from catalog_keys where match_key is not null)
group by c.dataset, c.column_name
{%- endif %}
