{#- Generic data tests of the project (dbt-utils is not a dependency). -#}

{% test unique_combination(model, columns) %}
{#- Fails with one row per duplicated key: the combination of `columns` must be unique. -#}
select {{ columns | join(', ') }}, count(*) as n_rows
from {{ model }}
group by {{ columns | join(', ') }}
having count(*) > 1
{% endtest %}


{% test not_null_columns(model, columns) %}
{#- Fails with one row per column of `columns` that holds NULLs (column_name, n_null_rows): dbt's
    not_null for every listed column in one scan and one test node (a node per column cost the build
    about 0.15 s of dbt's bookkeeping each: 246 of them, 7 s of a 34 s build of the excerpts). -#}
with null_counts as (
    select
    {%- for c in columns %}
        sum(case when {{ adapter.quote(c) }} is null then 1 else 0 end) as n_{{ loop.index }}{{ ',' if not loop.last }}
    {%- endfor %}
    from {{ model }}
)
{%- for c in columns %}
select '{{ c }}' as column_name, n_{{ loop.index }} as n_null_rows from null_counts where n_{{ loop.index }} > 0
{{- '\nunion all' if not loop.last }}
{%- endfor %}
{% endtest %}


{% test value_between(model, column_name, min_value=none, max_value=none) %}
{#- Fails on rows whose value lies outside [min_value, max_value]; NULLs pass. -#}
select *
from {{ model }}
where {{ column_name }} is not null
  and (
    false
    {% if min_value is not none %} or {{ column_name }} < {{ min_value }} {% endif %}
    {% if max_value is not none %} or {{ column_name }} > {{ max_value }} {% endif %}
  )
{% endtest %}


{% test within_catalog_bounds(model, column_name, catalog, metric_column='metric_id') %}
{#- Fails on numeric values outside the catalog's physical bounds of their metric
    (physical_min / physical_max of the metric catalog seed; an empty bound is open). -#}
select m.*
from {{ model }} as m
join {{ catalog }} as c on c.metric_id = m.{{ metric_column }}
where m.{{ column_name }} is not null
  and ((c.physical_min is not null and m.{{ column_name }} < c.physical_min)
    or (c.physical_max is not null and m.{{ column_name }} > c.physical_max))
{% endtest %}


{% test finite(model, column_name) %}
{#- Fails on NaN or infinite values (DuckDB stores both silently; DESIGN.md wants NULL). -#}
select * from {{ model }}
where {{ column_name }} is not null and (isnan({{ column_name }}) or {{ wag_is_infinite(column_name) }})
{% endtest %}


{% test staging_contract(model, dataset) %}
{#- One test for the whole staging contract (DESIGN.md §2), so each staging model costs one test
    node instead of a dozen: fails with one row per violation and its reason.
      * dataset = the given name; subject_id starts with '<dataset>:'; day and raw_field not NULL
      * a row carries a value or a value_text (missing = no row), and value is finite
      * one row per (subject_id, day, raw_field) -#}
with checks as (
    select
        subject_id, day, raw_field,
        case
            when dataset is distinct from '{{ dataset }}' then 'dataset is not {{ dataset }}'
            when subject_id is null or substr(subject_id, 1, {{ (dataset ~ ':') | length }}) <> '{{ dataset }}:' then 'subject_id not {{ dataset }}:<id>'
            when day is null then 'day is NULL'
            when raw_field is null then 'raw_field is NULL'
            when value is null and value_text is null then 'neither value nor value_text'
            when value is not null and (isnan(value) or {{ wag_is_infinite('value') }}) then 'value not finite'
        end as problem
    from {{ model }}
),
duplicates as (
    select subject_id, day, raw_field, 'duplicate (subject_id, day, raw_field) x' || count(*) as problem
    from {{ model }}
    group by subject_id, day, raw_field
    having count(*) > 1
)
select * from checks where problem is not null
union all
select * from duplicates
{% endtest %}


{% macro get_where_subquery(relation) -%}
{#-
  dbt's hook for a data test's `where` config (overrides dbt's own; any other `where` goes to dbt's
  implementation for the adapter).
  where: __changed_subjects__ restricts the test to the subjects recomputed by this run
  (int_changed_subjects: every subject in a full build, the changed ones in an incremental one,
  issue 10), for tests of a subject-level table whose rows depend only on their subject's data: the
  other subjects' rows were kept from the last complete build, which tested them with the same
  project files. daily_abnormality's key test: 5.4 s of a 54 s incremental build at 500 subjects.
  On Spark (full tables only) the token means no filter.
-#}
  {%- set where = config.get('where') -%}
  {%- if where == '__changed_subjects__' and target.type == 'spark' -%}
    {#- Spark builds every table in full (no incremental models): every row is tested -#}
    {%- do return(relation) -%}
  {%- elif where == '__changed_subjects__' -%}
    {%- set changed = api.Relation.create(database=target.database, schema=target.schema,
                                          identifier='int_changed_subjects') -%}
    {%- do return("(select * from " ~ relation ~ " where subject_id in (select subject_id from " ~ changed ~ ")) as dbt_subquery") -%}
  {%- else -%}
    {%- do return(adapter.dispatch('get_where_subquery', 'dbt')(relation)) -%}
  {%- endif -%}
{%- endmacro %}
