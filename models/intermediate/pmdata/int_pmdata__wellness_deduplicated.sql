{#-
  PMData PMSys wellness -> staging contract (DESIGN.md §2; FORMATS.md §1.6, §0.3, §0.8).

  Input : stg_pmdata__wellness_reports (one row per CSV row, renamed and cast).
  Output raw_fields (raw PMSys scale; orientation is fixed in the field map), one row per
  (subject_id, day, raw_field); listed in wag_staging_models (macros/staging_models.sql):
    wellness.fatigue   1-5, 5 = very fresh   (-> mental_fatigue = 6 - x)
    wellness.stress    1-5, 5 = very relaxed (-> mental_stress = 6 - x)
    wellness.mood      1-5, 5 = best         (-> mood as is)
    wellness.readiness 0-10                  (-> readiness as is)
  Orientation (5 = best) is the PMSys convention stated in FORMATS.md §0.8; the PMData paper text could
  not be consulted here. The excerpts agree with it: raw fatigue rises with readiness (Spearman 0.18 to
  0.73 per participant) and with self-reported sleep hours (0.36 pooled).

  Rules
  * effective_time_frame is UTC ('...Z'); day = LOCAL calendar date in var('pmdata_timezone',
    'Europe/Oslo') (CET/CEST, DST-aware): 2019-11-16T23:50:57Z is 00:50 on 2019-11-17 in Oslo. A report
    without a participant folder or a readable time gives nothing.
  * Several reports on one local day -> the last one by time is kept (a later report corrects an
    earlier one; p13 2019-12-25 has two within 24 s).
  * Items outside their scale (1-5; readiness 0-10; p13 once has stress 0) are treated as missing.
-#}
{%- set tz = var('pmdata_timezone', 'Europe/Oslo') -%}
with wellness_reports as (
    select * from {{ ref('stg_pmdata__wellness_reports') }}
),

localised as (
    select *, {{ wag_local_day('reported_at', tz) }} as day
    from wellness_reports
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
