{#-
  PMData PMSys wellness self-reports -> staging contract (DESIGN.md §2; FORMATS.md §1.6, §0.3, §0.8).

  Input : pmdata/<pid>/pmsys/wellness.csv
          effective_time_frame,fatigue,mood,readiness,sleep_duration_h,sleep_quality,soreness,soreness_area,stress
  Output raw_fields (raw PMSys scale; orientation is fixed in the field map):
    wellness.fatigue   1-5, 5 = very fresh   (-> mental_fatigue = 6 - x)
    wellness.stress    1-5, 5 = very relaxed (-> mental_stress = 6 - x)
    wellness.mood      1-5, 5 = best         (-> mood as is)
    wellness.readiness 0-10                  (-> readiness as is)
  sleep_quality, soreness, soreness_area and sleep_duration_h have no catalog metric and are not emitted.
  Orientation (5 = best) is the PMSys convention stated in FORMATS.md §0.8; the PMData paper text could
  not be consulted here. The excerpts agree with it: raw fatigue rises with readiness (Spearman 0.18 to
  0.73 per participant) and with self-reported sleep hours (0.36 pooled).

  Rules
  * effective_time_frame is UTC ('...Z'); day = LOCAL calendar date in var('pmdata_timezone',
    'Europe/Oslo') (CET/CEST, DST-aware): 2019-11-16T23:50:57Z is 00:50 on 2019-11-17 in Oslo.
  * Several reports on one local day -> the last one by time is kept (a later report corrects an
    earlier one; p13 2019-12-25 has two within 24 s).
  * Items outside their scale (1-5; readiness 0-10; p13 once has stress 0) are treated as missing.
  * All columns are read as text and cast here (no sniffing); CRLF and LF both work. The casts are
    the macros of macros/quarantine.sql; a row whose time or item does not parse is listed in
    raw_rejected (an empty item is missing, not rejected).
-#}
{%- set wellness_glob = wag_source_glob('pmdata_raw', 'pmsys_wellness') -%}
{%- set tz = var('pmdata_timezone', 'Europe/Oslo') -%}
{%- if wag_files_exist(wellness_glob) %}
with raw as (
    select
        regexp_extract({{ wag_path_slashes('filename') }}, '/([^/]+)/pmsys/[^/]+$', 1) as pid,
        {{ wag_parse_utc_timestamp('effective_time_frame') }} as reported_at,
        {{ wag_parse_number('fatigue') }} as fatigue,
        {{ wag_parse_number('stress') }} as stress,
        {{ wag_parse_number('mood') }} as mood,
        {{ wag_parse_number('readiness') }} as readiness
    from {{ wag_read_csv(wellness_glob, "all_varchar = true, union_by_name = true, delim = ','",
                          required=['effective_time_frame', 'fatigue', 'mood', 'readiness', 'stress']) }}
),

localised as (
    select *, {{ wag_local_day('reported_at', tz) }} as day
    from raw
    where pid <> '' and reported_at is not null
),

last_report as (
    select *
    from localised
    qualify row_number() over (partition by pid, day order by reported_at desc) = 1
),

long as (
    select pid, day, 'wellness.fatigue' as raw_field,
           case when fatigue between 1 and 5 then fatigue end as value
    from last_report
    union all
    select pid, day, 'wellness.stress', case when stress between 1 and 5 then stress end from last_report
    union all
    select pid, day, 'wellness.mood', case when mood between 1 and 5 then mood end from last_report
    union all
    select pid, day, 'wellness.readiness', case when readiness between 0 and 10 then readiness end from last_report
)

{{ wag_contract_rows('pmdata', 'long', pid_column='pid') }}
{%- else %}
{{ wag_empty_raw() }}
{%- endif %}
