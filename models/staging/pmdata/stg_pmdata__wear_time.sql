{#-
  PMData wear evidence per day (DESIGN.md §2 "Non-wear"; FORMATS.md §1.2): minutes with a heart-rate
  reading, i.e. the sum of the four zones of `pmdata/<pid>/fitbit/time_in_heart_rate_zones.json`
  ({"dateTime": "2019-11-01 00:00:00", "value": {"valuesInZones": {"BELOW_DEFAULT_ZONE_1": 1254.0, ...}}}).
  Fitbit fills sedentary minutes up to 1,440 whether or not the watch is worn, so minutes with a heart
  rate are the only direct measure of wear time in this export.
  Output: one row per (subject_id, day): wear_minutes (0..1440), evidence (text). Not a staging-contract
  model: int_wear_days reads it to mark non-wear days missing for the activity metrics.
  A repeated dateTime collapses to its maximum; a day absent from the file has no row (no evidence).
  dateTime and the zone minutes are parsed by macros shared with raw_rejected (pmdata_zone_day,
  pmdata_zone_minutes); an element with no readable dateTime or a zone that is not a number is listed there.
-#}
{%- set hr_glob = 'pmdata/*/fitbit/time_in_heart_rate_zones.json' -%}
{%- if wag_files_exist(hr_glob) %}
with raw as (
    select
        regexp_extract({{ wag_path_slashes('filename') }}, '/([^/]+)/fitbit/[^/]+$', 1) as pid,
        cast({{ pmdata_zone_day('dateTime') }} as date) as day,
        {{ pmdata_zone_minutes(wag_q('value')) }} as zone_minutes
    from {{ wag_read_json(hr_glob, "columns = {dateTime: 'VARCHAR', value: 'JSON'}") }}
)

select
    cast('pmdata' as string)                       as dataset,
    cast('pmdata:' || pid as string)               as subject_id,
    day,
    cast(least(max(zone_minutes), 1440) as double)  as wear_minutes,
    cast('minutes with heart rate (time_in_heart_rate_zones.json)' as string) as evidence
from raw
where pid <> '' and day is not null and zone_minutes is not null
group by pid, day
{%- else %}
select cast(null as string) as dataset, cast(null as string) as subject_id, cast(null as date) as day,
       cast(null as double) as wear_minutes, cast(null as string) as evidence
where false
{%- endif %}
