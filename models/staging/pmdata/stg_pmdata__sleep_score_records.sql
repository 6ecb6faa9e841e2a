{#-
  PMData Fitbit sleep scores, renamed and cast (DESIGN.md §2; FORMATS.md §1.5, §0.3).

  Input : pmdata/<pid>/fitbit/sleep_score.csv (source pmdata_raw.fitbit_sleep_score), one row per scored
          sleep log.
  Output: one row per CSV row as written: pid (participant folder), end_local, log_id, overall_score.
          The rules (one score per log, one per wake-up day) and the staging-contract rows are
          int_pmdata__sleep_score_deduplicated.

  Casting
  * `timestamp` is the LOCAL sleep end time despite its trailing 'Z' (FORMATS §0.3): wag_parse_timestamp
    drops the 'Z', no time-zone shift.
  * All columns are read as text (no type or date sniffing) and cast here; CRLF and LF both work. A
    file without timestamp, sleep_log_entry_id or overall_score stops the build naming the file.
-#}
{%- set score_glob = wag_source_glob('pmdata_raw', 'fitbit_sleep_score') -%}
{%- if wag_files_exist(score_glob) %}
with source as (
    select *
    from {{ wag_read_csv(score_glob, "all_varchar = true, union_by_name = true, delim = ','",
                          required=['timestamp', 'sleep_log_entry_id', 'overall_score']) }}
),

renamed as (
    select
        regexp_extract({{ wag_path_slashes('filename') }}, '/([^/]+)/fitbit/[^/]+$', 1) as pid,
        -- local wall clock despite the 'Z' (see the header): wag_parse_timestamp drops it
        {{ wag_parse_timestamp(wag_q('timestamp')) }} as end_local,
        trim(sleep_log_entry_id) as log_id,
        {{ wag_parse_number('overall_score') }} as overall_score
    from source
)

select * from renamed
{%- else %}
-- no sleep_score.csv under the data folder: the same columns, no rows
select
    cast(null as string)    as pid,
    cast(null as timestamp) as end_local,
    cast(null as string)    as log_id,
    cast(null as double)    as overall_score
where false
{%- endif %}
