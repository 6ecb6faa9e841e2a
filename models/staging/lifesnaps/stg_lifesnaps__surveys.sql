{#-
  LifeSnaps scored surveys -> staging contract rows (DESIGN.md §2, FORMATS.md §2.3, §5).

  Input : <data_dir>/lifesnaps/rais_anonymized/scored_surveys/{panas,stai,personality}.csv
          (CRLF, leading pandas-index column, `user_id`, `type`, `submitdate` YYYY-MM-DD, unsorted).
          Each file is optional on its own: an absent file contributes an empty branch.
          breq.csv and ttm.csv carry no catalog metric and are not read.
  Output: one row per (subject_id, day = submitdate, raw_field):
    panas.positive_affect_score / panas.negative_affect_score  numeric, 10..50
    stai.stai_stress      numeric, 20..80 (STAI anxiety score). Emitted but deliberately NOT mapped in
                          raw_field_map_lifesnaps: the catalog `anxiety` of LifeSnaps comes from the daily
                          SEMA TENSE/ANXIOUS flag (0/1); both on one day would be averaged downstream.
    personality.ipip_scores  text 'extraversion 21, agreeableness 33, conscientiousness 45,
                          stability 42, intellect 40' (IPIP-50 sums, 10..50), on the submit day.
  Parsing: submitdate and the scores go through the macros of macros/quarantine.sql; an empty cell is
  missing (no row), a row with an empty or unreadable submitdate, or a non-empty score that is not a
  number, is listed in raw_rejected.
  Duplicates: none observed per (user_id, submitdate); if a file repeats a day, the mean (numeric) or
  the smallest text (min) is kept so the key stays unique.
-#}
{%- set csv_options = "all_varchar = true, delim = ',', quote = '\"'" -%}
{%- set has_panas = wag_files_exist(wag_source_glob('lifesnaps_raw', 'panas')) -%}
{%- set has_stai = wag_files_exist(wag_source_glob('lifesnaps_raw', 'stai')) -%}
{%- set has_personality = wag_files_exist(wag_source_glob('lifesnaps_raw', 'personality')) -%}

with panas as (
    {% if has_panas %}
    select
        'lifesnaps:' || trim(user_id)                                   as subject_id,
        {{ wag_parse_date('submitdate') }}                              as day,
        {{ wag_parse_number('positive_affect_score') }}                 as positive_affect_score,
        {{ wag_parse_number('negative_affect_score') }}                 as negative_affect_score
    from {{ wag_read_csv(wag_source_glob('lifesnaps_raw', 'panas'), csv_options) }}
    {% else %}
    select cast(null as string) as subject_id, cast(null as date) as day,
           cast(null as double) as positive_affect_score, cast(null as double) as negative_affect_score
    where false
    {% endif %}
),

stai as (
    {% if has_stai %}
    select
        'lifesnaps:' || trim(user_id)                                   as subject_id,
        {{ wag_parse_date('submitdate') }}                              as day,
        {{ wag_parse_number('stai_stress') }}                           as stai_stress
    from {{ wag_read_csv(wag_source_glob('lifesnaps_raw', 'stai'), csv_options) }}
    {% else %}
    select cast(null as string) as subject_id, cast(null as date) as day, cast(null as double) as stai_stress
    where false
    {% endif %}
),

personality as (
    {% if has_personality %}
    select
        'lifesnaps:' || trim(user_id)                                   as subject_id,
        {{ wag_parse_date('submitdate') }}                              as day,
        nullif(concat_ws(', '
            {%- for trait in ['extraversion', 'agreeableness', 'conscientiousness', 'stability', 'intellect'] %},
            '{{ trait }} ' || regexp_replace(cast({{ wag_parse_number(trait) }} as string), '\.0$', '')
            {%- endfor %}
        ), '')                                                          as ipip_scores
    from {{ wag_read_csv(wag_source_glob('lifesnaps_raw', 'personality'), csv_options) }}
    {% else %}
    select cast(null as string) as subject_id, cast(null as date) as day, cast(null as string) as ipip_scores
    where false
    {% endif %}
),

numeric_rows as (
    select subject_id, day, 'panas.positive_affect_score' as raw_field, positive_affect_score as value
    from panas
    union all
    select subject_id, day, 'panas.negative_affect_score', negative_affect_score
    from panas
    union all
    select subject_id, day, 'stai.stai_stress', stai_stress
    from stai
)

select
    'lifesnaps'             as dataset,
    subject_id,
    day,
    raw_field,
    avg(value)              as value,
    cast(null as string)   as value_text
from numeric_rows
where subject_id is not null and day is not null and value is not null
group by subject_id, day, raw_field

union all

select
    'lifesnaps'                             as dataset,
    subject_id,
    day,
    'personality.ipip_scores'               as raw_field,
    cast(null as double)                    as value,
    min(ipip_scores)                        as value_text
from personality
where subject_id is not null and day is not null and ipip_scores is not null
group by subject_id, day
