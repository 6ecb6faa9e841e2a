{#-
  Wide daily sources -> staging contract + metric_id (DESIGN.md §2; wag_processed/README.md).

  Input : var('wide_sources') = [{"dataset": ..., "path": ...}, ...]; each CSV has participant_id,
          date (YYYY-MM-DD, the day described; for sleep the wake-up day, as in the WAG processed
          tables) and one column per metric (read by stg_wide__cells).
  Output: dataset, subject_id, day, raw_field, metric_id, value, value_text — one row per
          (subject_id, day, raw_field); raw_field = the column header as written; no field map: the
          values are taken to be in the catalog unit already.

  Column -> metric: lower(trim(header)) is compared with lower(metric_id), lower(name) and each
  '|'-separated alias of ref('metric_catalog'); metric_id matches win over name matches over alias
  matches (then the smallest metric_id). Columns that resolve to no metric are dropped here and
  listed in stg_wide__unmapped_columns.

  Values
  * empty / blank field = missing = no row; the texts 'nan', 'NaN', 'inf' (pandas artefacts) parse
    to non-finite doubles and are treated as missing too;
  * numeric when try_cast(trimmed text as double) succeeds (ints, floats, scientific notation);
  * a date-time text in a column whose metric is numeric in the catalog (bedtime start/end in the
    WAG tables: '2020-03-14 03:03:54', '2021-05-24T00:40:00.000') becomes wall-clock minutes relative
    to local midnight at the start of `day` (03:03:54 -> 183.9; 23:30 the evening before -> -30),
    the catalog unit of bedtime_start_time / bedtime_end_time;
  * anything else is text (value_text, trimmed), e.g. 'NO_GOAL', '<30', "['Walk']" (Python list
    literals are kept as written), 'HAPPY, NEUTRAL'.
  Duplicate participant-days (ifh_df.csv: 95 keys, only PANAS differs): one row per
  (subject_id, day, raw_field); numeric values -> mean, text values -> the distinct values in sorted
  order joined by '; '.
  subject_id = dataset || ':' || trim(participant_id). With wide_sources = [] the model is empty.
  Odd magnitudes (barometric pressure 0.37 hPa, energy expenditure 0.69 kcal) are kept here; values
  outside the catalog's physical bounds are rejected downstream (int_metric_values__checked).
-#}
{{ config(materialized='table') }}
{%- set sources = var('wide_sources', []) -%}
{%- if sources | length == 0 %}
select
    cast(null as string) as dataset,
    cast(null as string) as subject_id,
    cast(null as date)    as day,
    cast(null as string) as raw_field,
    cast(null as string) as metric_id,
    cast(null as double)  as value,
    cast(null as string) as value_text
where false
{%- else %}
with cells as (
    select * from {{ ref('stg_wide__cells') }}
),

catalog as (
    select metric_id, name, aliases, data_kind from {{ ref('metric_catalog') }}
),

catalog_keys as (
    select metric_id, lower(trim(metric_id)) as match_key, 1 as priority from catalog
    union all
    select metric_id, lower(trim(name)), 2 from catalog where name is not null
    union all
    select metric_id, lower(trim(alias)), 3
    from (select metric_id, unnest(string_split(aliases, '|')) as alias from catalog where aliases is not null)
    where trim(alias) <> ''
),

columns_resolved as (
    select c.dataset, c.column_name, k.metric_id
    from (select distinct dataset, column_name from cells) as c
    inner join catalog_keys as k on k.match_key = lower(trim(c.column_name))
    qualify row_number() over (
        partition by c.dataset, c.column_name order by k.priority, k.metric_id
    ) = 1
),

typed as (
    select
        c.dataset,
        c.dataset || ':' || trim(c.participant_id) as subject_id,
        cast(strptime(trim(c.date_text), '%Y-%m-%d') as date) as day,
        c.column_name as raw_field,
        r.metric_id,
        trim(c.raw_value) as txt,
        try_cast(trim(c.raw_value) as double) as num,
        -- a timestamp only where the cell is not a number (parsing every cell as both costs ~2x)
        case when try_cast(trim(c.raw_value) as double) is null
             then try_cast(trim(c.raw_value) as timestamp) end as ts,
        coalesce(k.data_kind, 'numeric') = 'numeric' as is_numeric_metric
    from cells as c
    inner join columns_resolved as r on r.dataset = c.dataset and r.column_name = c.column_name
    left join catalog as k on k.metric_id = r.metric_id
    where nullif(trim(c.raw_value), '') is not null
),

valued as {{ wag_not_materialized() }} (
    select
        dataset, subject_id, day, raw_field, metric_id,
        case
            when num is not null then num
            when ts is not null and is_numeric_metric
                then date_diff('second', cast(day as timestamp), ts) / 60.0
        end as value,
        case
            when num is null and not (ts is not null and is_numeric_metric) then txt
        end as value_text
    from typed
    -- 'nan' / 'inf' texts: missing, not a number
    where num is null or isfinite(num)
)

-- one row per (dataset, subject_id, day, raw_field): only duplicated participant-days are grouped
-- (wag_collapse_duplicates; at 2,000 subjects grouping all 16.5 M cells made this model 20.6 s instead
-- of 11.0 s standalone, issue 10)
select * from (
{{ wag_collapse_duplicates('valued', ['dataset', 'subject_id', 'day', 'raw_field'], [
    ['metric_id', 'metric_id', 'any_value(metric_id)'],
    ['value', 'value', 'avg(value)'],
    ['value_text', 'value_text', wag_string_agg('value_text', "'; '", 'value_text', distinct=true)]]) }}
) as collapsed
{%- endif %}
