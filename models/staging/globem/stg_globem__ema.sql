{#-
  GLOBEM self-reports -> staging contract (DESIGN.md §2; FORMATS.md §3.3, §5).

  Inputs (globem/<study>/SurveyData/):
  * ema.csv — pid, date, then per study year INS-W_1: negative_affect_EMA only; INS-W_2..4:
    phq4_EMA (0-12), phq4_anxiety_EMA (0-6), phq4_depression_EMA (0-6), pss4_EMA (PSS-4, 0-16,
    higher = more stress), positive_affect_EMA, negative_affect_EMA (short PANAS sums). The two EMA
    variants interleave, so every row has some columns empty. raw_field = 'ema.' || column.
  * dep_weekly.csv — INS-W_1 has feel_anxious / feel_depressed (0-3 each: the single PHQ-4 items
    "nervous, anxious" / "down, depressed"); every year has BDI2 (BDI-II, 0-63, on the end-of-study
    row) and dep (the depression label, True/False). Each instrument keeps its own scale (issue 9
    item 7): raw_field 'dep_weekly.' || column, items 0-3 as written (never doubled into the 0-6
    sub-score range), BDI2 0-63 as written, dep as the text 'true'/'false' (a categorical, value
    NULL). phq4 of later years duplicates ema.phq4_EMA and is not written; dep_endterm.csv is not read.
  * pre.csv — one row per participant, date = day of the pre-study survey. The Big-Five BFI-10
    scores BFI10_{extroversion,agreeableness,conscientiousness,neuroticism,openness}_PRE (2-10)
    become one text value, raw_field 'pre.BFI10', e.g.
    'BFI-10 (2-10): extroversion 5, agreeableness 7, conscientiousness 10, neuroticism 8, openness 5'.
  Output: one row per (subject_id, day, raw_field); day = the survey date (local, as given).

  Rules: empty field = missing = no row; numeric values cast from text (pandas floats) and dates
  parsed by the macros of macros/quarantine.sql (a row whose date or value does not parse is listed
  in raw_rejected; pre.csv's BFI-10 items and date too). Several
  answers of one item on the same pid and date (GLOBEM's own loader keeps the last; not observed
  here) are averaged. Columns absent from a study year simply give no rows (files are read with
  union_by_name).
-#}
{{ config(materialized='table') }}
{#- Wide RAPIDS CSVs: fixing the dialect skips DuckDB's sniffer (~10x faster on 1000-column files);
    a table, not a view, so tests and downstream models parse the CSVs once. -#}
{%- set csv_opts = "all_varchar = true, union_by_name = true, delim = ',', quote = '\"', escape = '\"'" -%}
{%- set ema_glob = wag_source_glob('globem_raw', 'ema') -%}
{%- set weekly_glob = wag_source_glob('globem_raw', 'dep_weekly') -%}
{%- set pre_glob = wag_source_glob('globem_raw', 'pre') -%}
{%- set ema_items = ['phq4_EMA', 'phq4_anxiety_EMA', 'phq4_depression_EMA', 'pss4_EMA',
                     'positive_affect_EMA', 'negative_affect_EMA'] -%}
{%- set weekly_items = ['feel_anxious', 'feel_depressed', 'BDI2'] -%}
{%- set traits = ['extroversion', 'agreeableness', 'conscientiousness', 'neuroticism', 'openness'] -%}
{%- set has_ema = wag_files_exist(ema_glob) -%}
{%- set has_weekly = wag_files_exist(weekly_glob) -%}
{%- set has_pre = wag_files_exist(pre_glob) -%}
{%- if has_ema or has_weekly or has_pre %}
with
{#- ema.csv and dep_weekly.csv: the same unpivot of their listed item columns, one CTE each -#}
{%- for survey in [{'cte': 'ema', 'glob': ema_glob, 'items': ema_items, 'prefix': 'ema.', 'exists': has_ema},
                   {'cte': 'weekly', 'glob': weekly_glob, 'items': weekly_items, 'prefix': 'dep_weekly.', 'exists': has_weekly}]
      if survey.exists %}
{%- set header = wag_csv_header(survey.glob, csv_opts) -%}
{%- set present = [] -%}{%- for i in survey['items'] if i in header -%}{%- do present.append(i) -%}{%- endfor %}
{{ survey.cte }} as (
    {%- if present %}
    select '{{ survey.prefix }}' || item as raw_field, pid, {{ wag_q('date') }}, raw_value
    from (
        {{ wag_unpivot("(select " ~ globem_subject_key('filename', 'pid') ~ " as pid, " ~ wag_q('date')
                        ~ ", " ~ wag_q_list(present) ~ " from " ~ wag_read_csv(survey.glob, csv_opts) ~ ")",
                        present, 'item', 'raw_value') }}
    )
    {%- else %}
    select cast(null as string) as raw_field, cast(null as string) as pid, cast(null as string) as {{ wag_q('date') }},
           cast(null as string) as raw_value
    where false
    {%- endif %}
),
{%- endfor %}
{%- if has_pre %}
{%- set bfi_columns = [] -%}
{%- for c in wag_csv_header(pre_glob, csv_opts) if modules.re.search('^BFI10_[a-z]+_PRE$', c) -%}{%- do bfi_columns.append(c) -%}{%- endfor %}
bfi_items as (
    {%- if bfi_columns %}
    select
        pid,
        {{ wag_q('date') }},
        regexp_extract(item, '^BFI10_([a-z]+)_PRE$', 1) as trait,
        {{ wag_parse_number('raw_value') }} as score
    from (
        {{ wag_unpivot("(select " ~ globem_subject_key('filename', 'pid') ~ " as pid, " ~ wag_q('date')
                        ~ ", " ~ wag_q_list(bfi_columns) ~ " from " ~ wag_read_csv(pre_glob, csv_opts) ~ ")",
                        bfi_columns, 'item', 'raw_value') }}
    )
    {%- else %}
    select cast(null as string) as pid, cast(null as string) as {{ wag_q('date') }}, cast(null as string) as trait,
           cast(null as double) as score
    where false
    {%- endif %}
),

bfi as (
    select
        pid,
        {{ wag_q('date') }},
        'BFI-10 (2-10): ' || {{ wag_string_agg("trait || ' ' || regexp_replace(cast(score as string), '\\.0$', '')", "', '",
                                                "coalesce(" ~ wag_list_position(traits, 'trait') ~ ", 99), trait") }} as value_text
    from bfi_items
    where score is not null
    group by pid, {{ wag_q('date') }}
),
{%- endif %}

numeric_answers as (
    {%- set parts = [] -%}
    {%- if has_ema %}{% do parts.append('select * from ema') %}{% endif -%}
    {%- if has_weekly %}{% do parts.append('select * from weekly') %}{% endif -%}
    {%- if parts | length == 0 %}{% do parts.append("select cast(null as string) as raw_field, cast(null as string) as pid, cast(null as string) as " ~ wag_q('date') ~ ", cast(null as string) as raw_value where false") %}{% endif %}
    {{ parts | join('\n    union all\n    ') }}
)

select
    'globem' as dataset,
    'globem:' || trim(pid) as subject_id,
    {{ wag_parse_date(wag_q('date')) }} as day,
    raw_field,
    avg({{ wag_parse_number('raw_value') }}) as value,
    cast(null as string) as value_text
from numeric_answers
where {{ wag_parse_number('raw_value') }} is not null and {{ wag_parse_date(wag_q('date')) }} is not null
group by trim(pid), trim({{ wag_q('date') }}), raw_field
{%- if has_pre %}
union all
select
    'globem' as dataset,
    'globem:' || trim(pid) as subject_id,
    {{ wag_parse_date(wag_q('date')) }} as day,
    'pre.BFI10' as raw_field,
    cast(null as double) as value,
    {{ wag_string_agg('value_text', "'; '", 'value_text', distinct=true) }} as value_text
from bfi
where {{ wag_parse_date(wag_q('date')) }} is not null
group by trim(pid), trim({{ wag_q('date') }})
{%- endif %}
{%- if has_weekly %}
union all
select
    'globem' as dataset,
    'globem:' || {{ globem_subject_key('filename', 'pid') }} as subject_id,
    {{ wag_parse_date(wag_q('date')) }} as day,
    'dep_weekly.dep' as raw_field,
    cast(null as double) as value,
    cast(any_value({{ wag_parse_flag('dep') }}) as string) as value_text
from {{ wag_read_csv(weekly_glob, csv_opts) }}
where {{ wag_parse_flag('dep') }} is not null and {{ wag_parse_date(wag_q('date')) }} is not null
group by {{ globem_subject_key('filename', 'pid') }}, {{ wag_parse_date(wag_q('date')) }}
{%- endif %}
{%- else %}
{{ wag_empty_raw() }}
{%- endif %}
