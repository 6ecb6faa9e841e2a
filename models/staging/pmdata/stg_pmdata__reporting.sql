{#-
  PMData lifelog text -> staging contract (DESIGN.md §2; FORMATS.md §1.6, §1.7, §0.2, §0.6, §0.12, §5).

  Inputs: pmdata/<pid>/googledocs/reporting.csv  date,timestamp,meals,weight,glasses_of_fluid,alcohol_consumed
          pmdata/<pid>/pmsys/srpe.csv            end_date_time,activity_names,perceived_exertion,duration_min
          pmdata/<pid>/pmsys/injury.csv          effective_time_frame,injuries
          (each optional; absent files contribute nothing)
  Output: raw_field 'reporting.lifelog' (text), one row per (subject_id, day), parts joined by '; ':
          'meals: Breakfast, Dinner; weight: 100 kg; fluid: 7 glasses; alcohol: No;
           training: team, soccer 60 min RPE 7; injury: right_hand minor'
          (empty parts omitted; several training sessions / injuries in order of time).

  Rules
  * reporting.csv: `date` is DD/MM/YYYY (day-first) and is the day; `timestamp` (DD/MM/YYYY
    HH:MM:SS, submission time) only decides between duplicate rows of one date: the latest
    submission wins. Both are parsed by wag_parse_dmy_date / wag_parse_dmy_timestamp
    (macros/quarantine.sql; an ISO date is read too); a row whose date is empty or does not parse,
    or whose timestamp does not parse, is listed in raw_rejected.
  * srpe.csv: sessions with an activity list or RPE/duration, on the LOCAL (var pmdata_timezone,
    default Europe/Oslo) date of end_date_time (UTC). Empty sessions (' {},,') are skipped.
  * injury.csv: non-empty Python-dict entries ({'right_hand': 'minor'}) on the LOCAL date of
    effective_time_frame (UTC); '{}' is skipped.
  * The UTC times of srpe.csv and injury.csv are parsed by wag_parse_utc_timestamp (macros/quarantine.sql);
    raw_rejected lists a row whose time is empty or does not parse.
  * All CSVs are read as text (no type/date sniffing); CRLF and LF both work.
-#}
{%- set reporting_glob = wag_source_glob('pmdata_raw', 'googledocs_reporting') -%}
{%- set srpe_glob = wag_source_glob('pmdata_raw', 'pmsys_srpe') -%}
{%- set injury_glob = wag_source_glob('pmdata_raw', 'pmsys_injury') -%}
{%- set tz = var('pmdata_timezone', 'Europe/Oslo') -%}
{%- set has_reporting = wag_files_exist(reporting_glob) -%}
{%- set has_srpe = wag_files_exist(srpe_glob) -%}
{%- set has_injury = wag_files_exist(injury_glob) -%}
{%- if has_reporting or has_srpe or has_injury %}
with
{%- if has_reporting %}
reporting_raw as (
    select
        regexp_extract({{ wag_path_slashes('filename') }}, '/([^/]+)/googledocs/[^/]+$', 1) as pid,
        {{ wag_parse_dmy_date(wag_q('date')) }} as day,
        {{ wag_parse_dmy_timestamp(wag_q('timestamp')) }} as submitted_at,
        nullif(trim(meals), '') as meals,
        nullif(trim(weight), '') as weight,
        nullif(trim(glasses_of_fluid), '') as fluid,
        nullif(trim(alcohol_consumed), '') as alcohol
    from {{ wag_read_csv(reporting_glob, "all_varchar = true, union_by_name = true, delim = ','",
                          required=['date', 'timestamp', 'meals', 'weight', 'glasses_of_fluid', 'alcohol_consumed']) }}
),

reporting_parts as (
    select
        pid,
        day,
        1 as part_order,
        submitted_at as part_time,
        concat_ws('; ',
            'meals: ' || meals,
            'weight: ' || weight || ' kg',
            'fluid: ' || fluid || ' glasses',
            'alcohol: ' || alcohol
        ) as part
    from reporting_raw
    where pid <> '' and day is not null
    qualify row_number() over (
        partition by pid, day
        order by submitted_at desc nulls last, meals desc, weight desc, fluid desc, alcohol desc
    ) = 1
),
{%- endif %}
{%- if has_srpe %}
srpe_parts as (
    select
        pid,
        {{ wag_local_day('ended_at', tz) }} as day,
        2 as part_order,
        cast(ended_at as timestamp) as part_time,
        'training: ' || concat_ws(' ',
            nullif(activities, ''),
            duration_min || ' min',
            'RPE ' || rpe
        ) as part
    from (
        select distinct
            regexp_extract({{ wag_path_slashes('filename') }}, '/([^/]+)/pmsys/[^/]+$', 1) as pid,
            {{ wag_parse_utc_timestamp('end_date_time') }} as ended_at,
            trim({{ wag_regexp_replace_all("coalesce(activity_names, '')", "[\\[\\]{}' || chr(39) || '\"]", '') }}) as activities,
            nullif(trim(perceived_exertion), '') as rpe,
            nullif(trim(duration_min), '') as duration_min
        from {{ wag_read_csv(srpe_glob, "all_varchar = true, union_by_name = true, delim = ','") }}
    ) as s
    where pid <> '' and ended_at is not null
      and (activities <> '' or rpe is not null or duration_min is not null)
),
{%- endif %}
{%- if has_injury %}
injury_parts as (
    select
        pid,
        {{ wag_local_day('reported_at', tz) }} as day,
        3 as part_order,
        cast(reported_at as timestamp) as part_time,
        'injury: ' || injuries as part
    from (
        select distinct
            regexp_extract({{ wag_path_slashes('filename') }}, '/([^/]+)/pmsys/[^/]+$', 1) as pid,
            {{ wag_parse_utc_timestamp('effective_time_frame') }} as reported_at,
            -- {'right_hand': 'minor', 'left_knee': 'major'} -> right_hand minor, left_knee major
            trim({{ wag_regexp_replace_all(wag_regexp_replace_all("coalesce(injuries, '')", "[{}' || chr(39) || '\"]", ''), '\\s*:\\s*', ' ') }}) as injuries
        from {{ wag_read_csv(injury_glob, "all_varchar = true, union_by_name = true, delim = ','") }}
    ) as i
    where pid <> '' and reported_at is not null and injuries <> ''
),
{%- endif %}

parts as (
    select pid, day, part_order, part_time, part from (
    {%- set sep = joiner('union all') %}
    {%- if has_reporting %}
    {{ sep() }} select pid, day, part_order, part_time, part from reporting_parts
    {%- endif %}
    {%- if has_srpe %}
    {{ sep() }} select pid, day, part_order, part_time, part from srpe_parts
    {%- endif %}
    {%- if has_injury %}
    {{ sep() }} select pid, day, part_order, part_time, part from injury_parts
    {%- endif %}
    ) as u
    where day is not null and part is not null and part <> ''
)

select
    cast('pmdata' as string) as dataset,
    cast('pmdata:' || pid as string) as subject_id,
    cast(day as date) as day,
    cast('reporting.lifelog' as string) as raw_field,
    cast(null as double) as value,
    cast({{ wag_string_agg('part', "'; '", 'part_order, part_time, part') }} as string) as value_text
from parts
group by pid, day
{%- else %}
{{ wag_empty_raw() }}
{%- endif %}
