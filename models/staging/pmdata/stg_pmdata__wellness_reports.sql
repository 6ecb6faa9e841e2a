{#-
  PMData PMSys wellness reports, renamed and cast (DESIGN.md §2; FORMATS.md §1.6, §0.3, §0.8).

  Input : pmdata/<pid>/pmsys/wellness.csv (source pmdata_raw.pmsys_wellness)
          effective_time_frame,fatigue,mood,readiness,sleep_duration_h,sleep_quality,soreness,soreness_area,stress
  Output: one row per CSV row as written: pid (participant folder), reported_at (UTC instant), and the
          four items with a catalog metric on their raw PMSys scale: fatigue, stress, mood (1-5, 5 = best)
          and readiness (0-10). sleep_quality, soreness, soreness_area and sleep_duration_h have no catalog
          metric and are not read. The local day, the one report per day and the scale checks are
          int_pmdata__wellness_deduplicated.

  Casting: all columns are read as text and cast here (no sniffing); CRLF and LF both work. The casts are
  the macros of macros/quarantine.sql; a row whose time or item does not parse is listed in raw_rejected
  (an empty item is missing, not rejected). A file lacking a read column stops the build naming it.
-#}
{%- set wellness_glob = wag_source_glob('pmdata_raw', 'pmsys_wellness') -%}
{%- if wag_files_exist(wellness_glob) %}
with source as (
    select *
    from {{ wag_read_csv(wellness_glob, "all_varchar = true, union_by_name = true, delim = ','",
                          required=['effective_time_frame', 'fatigue', 'mood', 'readiness', 'stress']) }}
),

renamed as (
    select
        regexp_extract({{ wag_path_slashes('filename') }}, '/([^/]+)/pmsys/[^/]+$', 1) as pid,
        {{ wag_parse_utc_timestamp('effective_time_frame') }} as reported_at,
        {{ wag_parse_number('fatigue') }} as fatigue,
        {{ wag_parse_number('stress') }} as stress,
        {{ wag_parse_number('mood') }} as mood,
        {{ wag_parse_number('readiness') }} as readiness
    from source
)

select * from renamed
{%- else %}
-- no wellness.csv under the data folder: the same columns, no rows
select
    cast(null as string)      as pid,
    {{ wag_parse_utc_timestamp('cast(null as string)') }} as reported_at,
    cast(null as double)      as fatigue,
    cast(null as double)      as stress,
    cast(null as double)      as mood,
    cast(null as double)      as readiness
where false
{%- endif %}
