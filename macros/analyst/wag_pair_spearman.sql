{% macro wag_analyst_pair_spearman(schema) -%}
{#-
  The statement creating the DuckDB table macro <schema>.wag_pair_spearman (installed by
  macros/analyst/_install.sql, create_wag_retrieve): Spearman's rho of two metrics of one subject on
  their paired days in a date range, with the same spearman macro and validity rule as every correlation
  (DESIGN.md §5); the statement's own comment gives its arguments.
-#}
{%- set sql -%}
create or replace macro {{ schema }}.wag_pair_spearman(
    subject, metric_x, metric_y, start_day, end_day,
    min_samples := {{ var('min_samples') }}, lag_days := 0
) as table
-- Spearman's rho of two metrics of one subject on their paired days in [start_day, end_day]
-- (start_day NULL = from the first day; the days are metric_x's), the same macro and validity rule as
-- every correlation (DESIGN.md §5): one row with n, spearman_rho (signed; NULL when not valid) and
-- null_reason. lag_days pairs x on day d with y on day d + lag_days (1: a day's activity with the
-- sleep that ends the next morning, DESIGN.md §11).
with pair_days as (
    select 1 as pair_group, x.value as value_x, y.value as value_y
    from metric_values as x
    inner join metric_values as y
        on y.subject_id = x.subject_id and y.day = x.day + cast(lag_days as integer) and y.metric_id = metric_y
    where x.subject_id = subject and x.metric_id = metric_x
      and x.value is not null and y.value is not null
      and x.day <= end_day and (start_day is null or x.day >= start_day)
),
pair_rho as (
    {{ spearman('pair_days', ['pair_group'], 'value_x', 'value_y', 'min_samples') }}
)
select
    coalesce(r.n, 0) as n,
    r.spearman_rho,
    case when r.n is null then 'n_below_min' else r.null_reason end as null_reason
from (select 1 as one) as o
left join pair_rho as r on true;
{%- endset -%}
{{ return(sql) }}
{%- endmacro %}
