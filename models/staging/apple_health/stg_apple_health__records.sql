{#-
  Apple Health Record elements as written (issue 28, DESIGN.md §2 "A person's own export").

  Input : the Parquet parts listed by stg_apple_health__files (status 'read'), one row per <Record>
          element of each export.xml, its attributes as text, streamed by wag_cli.apple_health.
  Output: one row per record: dataset, subject_id ('apple_health:<person>'), file, line (of the
          element in export.xml), record_type, source_name, unit, value_text, start_text, end_text
          (Apple's 'YYYY-MM-DD HH:MM:SS +HHMM', local wall clock with its own UTC offset),
          in_correlation (the record sits inside a <Correlation>), value (a number, or NULL for
          category values such as sleep stages), start_local / end_local (the wall-clock time as
          written: the offset decides nothing else, so the local day is the written date), start_utc /
          end_utc (the instant, for durations across DST or time-zone changes).
  Rules : renames and casts only; records a reader cannot use (no date, a quantity that is not a
          number) are listed in raw_rejected by the same expressions.
-#}
-- depends_on: {{ ref('stg_apple_health__files') }}
{%- set parts = [] -%}
{%- if execute -%}
  {%- set rows = run_query("select part from " ~ ref('stg_apple_health__files') ~ " where status = 'read' and part is not null order by part") -%}
  {%- for r in rows.rows -%}{%- do parts.append(wag_sql_string(r[0])) -%}{%- endfor -%}
{%- endif -%}
{%- if parts | length > 0 %}
with parts as (
    select * from read_parquet([{{ parts | join(', ') }}], filename = true)
),

files as (
    select distinct part, subject_id, file from {{ ref('stg_apple_health__files') }}
)

select
    cast('apple_health' as string)                     as dataset,
    f.subject_id,
    f.file,
    p.line,
    p.record_type,
    p.source_name,
    p.unit,
    p.value                                            as value_text,
    p.start_date                                       as start_text,
    p.end_date                                         as end_text,
    p.in_correlation,
    {{ wag_parse_number('p.value') }}                  as value,
    {{ apple_health_local('p.start_date') }}           as start_local,
    {{ apple_health_local('p.end_date') }}             as end_local,
    {{ wag_parse_utc_timestamp(apple_health_iso('p.start_date')) }} as start_utc,
    {{ wag_parse_utc_timestamp(apple_health_iso('p.end_date')) }}   as end_utc
from parts as p
inner join files as f on f.part = p.filename
{%- else %}
select
    cast(null as string) as dataset, cast(null as string) as subject_id, cast(null as string) as file,
    cast(null as bigint) as line, cast(null as string) as record_type, cast(null as string) as source_name,
    cast(null as string) as unit, cast(null as string) as value_text, cast(null as string) as start_text,
    cast(null as string) as end_text, cast(null as boolean) as in_correlation, cast(null as double) as value,
    cast(null as timestamp) as start_local, cast(null as timestamp) as end_local,
    cast(null as timestamptz) as start_utc, cast(null as timestamptz) as end_utc
where false
{%- endif %}
