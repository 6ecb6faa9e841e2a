{#-
  IFH Affect Oura daily activity summaries -> staging contract rows (DESIGN.md §2, FORMATS.md §4.5, §5).

  Input : <data_dir>/ifh_affect/par_<n>/oura/activity.csv, any number of participants (glob); LF, header,
          one row per Oura activity day (04:00 .. 03:59:59 local, labelled by `date` = its start day).
          Read all-VARCHAR then parsed by the macros of macros/quarantine.sql: empty (or `null`) is
          missing; a row whose date does not parse or a cell that is not a number is listed in
          raw_rejected.
  Subject: 'ifh_affect:par_<n>' from the folder name.  Day: `date`.
  Output (value in the RAW unit; raw_field_map_ifh_affect converts):
    activity.steps (steps), activity.cal_total (kcal), activity.daily_movement (m, walking-equivalent),
    activity.low / activity.medium / activity.high / activity.inactive / activity.rest (minutes),
    activity.active_minutes = low + medium + high (minutes),
    activity.non_wear (minutes; emitted for coverage checks, not mapped to a metric).
  Not-worn rule (DESIGN.md §2 "a day with no wear is missing, not zero"): a day whose worn minutes
  (rest + inactive + low + medium + high) are 0 yields no rows but activity.non_wear. Partly worn days
  are kept as Oura reports them (par_21 2020-01-29: 719 of 740 classified minutes are non-wear, 213
  steps) here; int_wear_days then marks every day with less than var min_wear_hours of classified wear
  minutes as non-wear, and its activity values become missing (DESIGN.md §2 "Non-wear").
  Duplicates: one row per date is expected; should a date repeat, the row with most worn minutes wins.
-#}
{%- set activity_glob = wag_source_glob('ifh_affect_raw', 'oura_activity') -%}

{% if wag_files_exist(activity_glob) %}

with raw as (
    select *
    from {{ wag_read_csv(activity_glob, "all_varchar = true, delim = ',', quote = '\"'") }}
),

typed as (
    select
        'ifh_affect:' || regexp_extract({{ wag_path_slashes('filename') }}, '/(par_[0-9]+)/oura/[^/]+$', 1)
                                                                        as subject_id,
        {{ wag_parse_date(wag_q('date')) }}            as day,
        {{ wag_parse_number('steps') }}                                       as steps,
        {{ wag_parse_number('cal_total') }}                                   as cal_total,
        {{ wag_parse_number('daily_movement') }}                              as daily_movement,
        {{ wag_parse_number(wag_q('low')) }}                                       as low,
        {{ wag_parse_number('medium') }}                                      as medium,
        {{ wag_parse_number('high') }}                                        as high,
        {{ wag_parse_number('inactive') }}                                    as inactive,
        {{ wag_parse_number('rest') }}                                        as rest,
        {{ wag_parse_number('non_wear') }}                                    as non_wear
    from raw
),

one_per_day as (
    select
        *,
        coalesce(rest, 0) + coalesce(inactive, 0) + coalesce({{ wag_q('low') }}, 0) + coalesce(medium, 0) + coalesce(high, 0)
            as worn_minutes
    from typed
    where day is not null and subject_id <> 'ifh_affect:'
    qualify row_number() over (partition by subject_id, day order by worn_minutes desc) = 1
),

wide as (
    select
        subject_id,
        day,
        case when worn_minutes > 0 then steps end                       as {{ wag_q('activity.steps') }},
        case when worn_minutes > 0 then nullif(cal_total, 0) end        as {{ wag_q('activity.cal_total') }},
        case when worn_minutes > 0 then daily_movement end              as {{ wag_q('activity.daily_movement') }},
        case when worn_minutes > 0 then {{ wag_q('low') }} end                       as {{ wag_q('activity.low') }},
        case when worn_minutes > 0 then medium end                      as {{ wag_q('activity.medium') }},
        case when worn_minutes > 0 then high end                        as {{ wag_q('activity.high') }},
        case when worn_minutes > 0 then inactive end                    as {{ wag_q('activity.inactive') }},
        case when worn_minutes > 0 then rest end                        as {{ wag_q('activity.rest') }},
        case when worn_minutes > 0 then {{ wag_q('low') }} + medium + high end       as {{ wag_q('activity.active_minutes') }},
        non_wear                                                        as {{ wag_q('activity.non_wear') }}
    from one_per_day
),

-- UNPIVOT drops NULL cells: missing = no row.
long as (
    {{ wag_unpivot('wide', ['activity.steps', 'activity.cal_total', 'activity.daily_movement', 'activity.low', 'activity.medium', 'activity.high', 'activity.inactive', 'activity.rest', 'activity.active_minutes', 'activity.non_wear'], 'raw_field', 'value') }}
)

{{ wag_contract_rows('ifh_affect', 'long') }}

{% else %}
{{ wag_empty_raw() }}
{% endif %}
