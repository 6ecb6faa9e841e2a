{#-
  PMData Fitbit sleep score -> staging contract (DESIGN.md §2; FORMATS.md §1.5, §0.3).

  Input : pmdata/<pid>/fitbit/sleep_score.csv, one row per scored sleep log.
  Output: raw_field 'sleep_score.overall_score' (0-100), one row per (subject_id, day).

  Rules
  * day = calendar date of `timestamp`, which is the LOCAL sleep end time despite its trailing 'Z'
    (FORMATS §0.3) -> the wake-up day, consistent with stg_pmdata__sleep. No time-zone shift.
  * Duplicate sleep_log_entry_id rows collapse to one.
  * Two scores on one day (a nap scored besides the night) -> the earliest timestamp of the day is
    kept (the night ends before a daytime nap; on the excerpts this is the main-sleep score on both
    such days). sleep.json is deliberately not joined.
  * All columns are read as text (no type or date sniffing) and cast here; CRLF and LF both work.
-#}
{%- set score_glob = wag_source_glob('pmdata_raw', 'fitbit_sleep_score') -%}
{%- if wag_files_exist(score_glob) %}
with raw as (
    select
        regexp_extract({{ wag_path_slashes('filename') }}, '/([^/]+)/fitbit/[^/]+$', 1) as pid,
        -- local wall clock despite the 'Z' (see the header): wag_parse_timestamp drops it
        {{ wag_parse_timestamp(wag_q('timestamp')) }} as end_local,
        trim(sleep_log_entry_id) as log_id,
        {{ wag_parse_number('overall_score') }} as overall_score
    from {{ wag_read_csv(score_glob, "all_varchar = true, union_by_name = true, delim = ','",
                          required=['timestamp', 'sleep_log_entry_id', 'overall_score']) }}
),

per_log as (
    select *
    from raw
    where pid <> '' and end_local is not null and overall_score is not null
    qualify row_number() over (partition by pid, log_id order by end_local) = 1
),

per_day as (
    select pid, cast(end_local as date) as day, overall_score
    from per_log
    qualify row_number() over (partition by pid, cast(end_local as date) order by end_local, log_id) = 1
)

select
    cast('pmdata' as string) as dataset,
    cast('pmdata:' || pid as string) as subject_id,
    cast(day as date) as day,
    cast('sleep_score.overall_score' as string) as raw_field,
    cast(overall_score as double) as value,
    cast(null as string) as value_text
from per_day
{%- else %}
{{ wag_empty_raw() }}
{%- endif %}
