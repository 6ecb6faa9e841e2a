{#-
  PMData PMSys session RPE -> daily training load (DESIGN.md §2; FORMATS.md §1.6, §0.12).

  Input : pmdata/<pid>/pmsys/srpe.csv  end_date_time,activity_names,perceived_exertion,duration_min
          e.g. 2019-11-14T21:00:53.000Z,"['team', 'soccer']",7,60
  Output: raw_field 'srpe.training_load' = sum over the day's sessions of perceived_exertion (RPE 1-10)
          x duration_min, in arbitrary units (AU).

  Rules
  * day = LOCAL date (var pmdata_timezone, default Europe/Oslo) of end_date_time, which is UTC.
  * Empty sessions (' {},,' : no RPE or no duration) are skipped; a day with no valid session has no row.
  * Exact duplicate rows are counted once.
  * The session activity names go to the lifelog text (stg_pmdata__reporting), not here.
-#}
{%- set srpe_glob = wag_source_glob('pmdata_raw', 'pmsys_srpe') -%}
{%- set tz = var('pmdata_timezone', 'Europe/Oslo') -%}
{%- if wag_files_exist(srpe_glob) %}
with raw as (
    select distinct
        regexp_extract({{ wag_path_slashes('filename') }}, '/([^/]+)/pmsys/[^/]+$', 1) as pid,
        {{ wag_parse_utc_timestamp('end_date_time') }} as ended_at,
        trim(activity_names) as activity_names,
        {{ wag_parse_number('perceived_exertion') }} as rpe,
        {{ wag_parse_number('duration_min') }} as duration_min
    from {{ wag_read_csv(srpe_glob, "all_varchar = true, union_by_name = true, delim = ','",
                          required=['end_date_time', 'activity_names', 'perceived_exertion', 'duration_min']) }}
),

sessions as (
    select pid, {{ wag_local_day('ended_at', tz) }} as day, rpe * duration_min as load
    from raw
    -- a negative RPE or duration is quarantined (raw_rejected), not summed (issue 24)
    where pid <> '' and ended_at is not null and rpe >= 0 and duration_min >= 0
)

select
    cast('pmdata' as string) as dataset,
    cast('pmdata:' || pid as string) as subject_id,
    cast(day as date) as day,
    cast('srpe.training_load' as string) as raw_field,
    cast(sum(load) as double) as value,
    cast(null as string) as value_text
from sessions
group by pid, day
{%- else %}
{{ wag_empty_raw() }}
{%- endif %}
