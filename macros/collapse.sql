{% macro wag_collapse_duplicates(relation, keys, columns) -%}
{#-
  One row per combination of `keys` in `relation` (a CTE name, written `as {{ wag_not_materialized() }}`:
  it is read three times), as a query usable as a CTE body (it has its own WITH).

  columns  list of [name, single_expr, aggregate_expr]: a key held by one row gives single_expr of that
           row; a key held by several rows gives aggregate_expr over them (e.g. ['value', 'value',
           'avg(value)']). single_expr must equal aggregate_expr over one row (avg of one value is the
           value, the sorted distinct texts of one text are the text).

  Why (issue 10): grouping every row by several VARCHAR keys when almost no key repeats was most of the
  time of stg_wide__daily_metrics and int_metric_values__checked (2,000 subjects: 16.5 M groups, 20.6
  and 25.7 s standalone; bench/RESULTS.md). Here only one 64-bit hash per row (wag_group_key) is counted;
  rows whose hash repeats are grouped by the real keys, the others pass through. Two different keys
  sharing a hash are only grouped by their real keys: the result is the same, only slower.
-#}
{%- set key = wag_group_key(keys) -%}
with duplicate_hashes as (
    select {{ key }} as row_hash
    from {{ relation }}
    group by {{ key }}
    having count(*) > 1
)

select {{ keys | join(', ') }}{% for c in columns %}, {{ c[1] }} as {{ c[0] }}{% endfor %}
from {{ relation }}
where {{ key }} not in (select row_hash from duplicate_hashes)

union all

select {{ keys | join(', ') }}{% for c in columns %}, {{ c[2] }} as {{ c[0] }}{% endfor %}
from {{ relation }}
where {{ key }} in (select row_hash from duplicate_hashes)
group by {{ keys | join(', ') }}
{%- endmacro %}
