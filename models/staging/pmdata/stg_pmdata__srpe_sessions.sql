{#-
  PMData PMSys session RPE, renamed and cast (DESIGN.md §2; FORMATS.md §1.6, §0.12).

  Input : pmdata/<pid>/pmsys/srpe.csv (source pmdata_raw.pmsys_srpe)
          end_date_time,activity_names,perceived_exertion,duration_min
          e.g. 2019-11-14T21:00:53.000Z,"['team', 'soccer']",7,60
  Output: one row per CSV row as written (empty sessions ' {},,' and duplicates included): pid
          (participant folder), ended_at (UTC instant), activity_names (text as written, trimmed), rpe
          (perceived exertion 1-10) and duration_min. The daily training load is
          int_pmdata__srpe_aggregated; the activity names reach the lifelog text through
          stg_pmdata__reporting.

  Casting: all columns are read as text and cast by the macros of macros/quarantine.sql (raw_rejected
  lists what does not parse); a file lacking a read column stops the build naming it.
-#}
{%- set srpe_glob = wag_source_glob('pmdata_raw', 'pmsys_srpe') -%}
{%- if wag_files_exist(srpe_glob) %}
with source as (
    select *
    from {{ wag_read_csv(srpe_glob, "all_varchar = true, union_by_name = true, delim = ','",
                          required=['end_date_time', 'activity_names', 'perceived_exertion', 'duration_min']) }}
),

renamed as (
    select
        regexp_extract({{ wag_path_slashes('filename') }}, '/([^/]+)/pmsys/[^/]+$', 1) as pid,
        {{ wag_parse_utc_timestamp('end_date_time') }} as ended_at,
        trim(activity_names) as activity_names,
        {{ wag_parse_number('perceived_exertion') }} as rpe,
        {{ wag_parse_number('duration_min') }} as duration_min
    from source
)

select * from renamed
{%- else %}
-- no srpe.csv under the data folder: the same columns, no rows
select
    cast(null as string)      as pid,
    {{ wag_parse_utc_timestamp('cast(null as string)') }} as ended_at,
    cast(null as string)      as activity_names,
    cast(null as double)      as rpe,
    cast(null as double)      as duration_min
where false
{%- endif %}
