{#-
  Apple Health sleep analysis -> staging contract rows (issue 28; DESIGN.md §2: sleep belongs to the
  wake-up day).

  Input : stg_apple_health__records of type HKCategoryTypeIdentifierSleepAnalysis, value one of
          HKCategoryValueSleepAnalysisInBed, …AsleepCore, …AsleepDeep, …AsleepREM, …Awake,
          …AsleepUnspecified (and the pre-iOS 16 …Asleep, read as unspecified).
  Output: one row per (subject_id, wake-up day, raw_field), minutes: sleep.in_bed, sleep.asleep,
          sleep.core, sleep.deep, sleep.rem, sleep.awake, sleep.efficiency (%), sleep.start /
          sleep.end (minutes from local midnight at the start of the wake-up day; evening before < 0).
  Rules (where DESIGN.md is silent, what a user would expect, stated here)
  * The night of a sample: its wake-up day is the local date of (endDate + 6 h), i.e. a sample ending
    between 18:00 the day before and 18:00 that day belongs to that day's night. A night across
    midnight (23:00 -> 07:00) is therefore all on the morning's day, its pre-midnight stages included;
    an afternoon nap ending before 18:00 counts on its own day. Local = the record's own offset.
  * Duplicates count once (equal type, source, value, dates), as for quantities.
  * Sources are not summed: watch, phone (bedtime schedule: in-bed only) and apps each describe the same
    night. Per night the source with the most asleep minutes (then the longest span, then the name) is
    used for every value of that night.
  * Minutes are elapsed time (UTC instants), so a DST night counts its real length.
    asleep = core + deep + REM + unspecified; awake = Awake samples; in bed = from the chosen
    source's first sample start to its last sample end (Apple's InBed samples included);
    efficiency = asleep / in bed x 100. Stage rows (core, deep, rem, awake) only for a source that
    wrote stages (an unspecified-only night gives asleep and in-bed rows only).
  * sleep.start / sleep.end: the span's wall-clock times against local midnight of the wake-up day.
  * Overlapping samples of one source are summed as written (Apple does not write them for one source).
-#}
with records as (
    select * from {{ ref('stg_apple_health__records') }}
    where record_type = 'HKCategoryTypeIdentifierSleepAnalysis'
),

samples as (
    select
        subject_id,
        coalesce(source_name, '') as source_name,
        case value_text
            when 'HKCategoryValueSleepAnalysisInBed' then 'in_bed'
            when 'HKCategoryValueSleepAnalysisAsleepCore' then 'core'
            when 'HKCategoryValueSleepAnalysisAsleepDeep' then 'deep'
            when 'HKCategoryValueSleepAnalysisAsleepREM' then 'rem'
            when 'HKCategoryValueSleepAnalysisAwake' then 'awake'
            when 'HKCategoryValueSleepAnalysisAsleepUnspecified' then 'unspecified'
            when 'HKCategoryValueSleepAnalysisAsleep' then 'unspecified'
        end as stage,
        any_value(start_local) as start_local,
        any_value(end_local) as end_local,
        any_value(start_utc) as start_utc,
        any_value(end_utc) as end_utc
    from records
    where start_local is not null and end_local is not null and start_utc is not null and end_utc is not null
    group by subject_id, source_name, value_text, start_text, end_text
),

nights as (
    select
        *,
        cast(end_local + interval 6 hour as date) as day,
        {{ wag_seconds_between('start_utc', 'end_utc') }} / 60.0 as minutes
    from samples
    where stage is not null and end_utc > start_utc
),

per_source as (
    select
        subject_id,
        day,
        source_name,
        sum(minutes) filter (where stage in ('core', 'deep', 'rem', 'unspecified')) as asleep,
        sum(minutes) filter (where stage = 'core')  as core,
        sum(minutes) filter (where stage = 'deep')  as deep,
        sum(minutes) filter (where stage = 'rem')   as rem,
        sum(minutes) filter (where stage = 'awake') as awake,
        bool_or(stage in ('core', 'deep', 'rem'))   as has_stages,
        {{ wag_seconds_between('min(start_utc)', 'max(end_utc)') }} / 60.0 as in_bed,
        {{ wag_seconds_between('cast(day as timestamp)', 'min(start_local)') }} / 60.0 as start_minutes,
        {{ wag_seconds_between('cast(day as timestamp)', 'max(end_local)') }} / 60.0 as end_minutes
    from nights
    group by subject_id, day, source_name
),

chosen as (
    select *
    from per_source
    qualify row_number() over (partition by subject_id, day
                               order by asleep desc nulls last, in_bed desc, source_name) = 1
),

long as (
    select subject_id, day, 'sleep.in_bed' as raw_field, in_bed as value from chosen
    union all
    select subject_id, day, 'sleep.asleep', asleep from chosen
    union all
    select subject_id, day, 'sleep.core', case when has_stages then coalesce(core, 0) end from chosen
    union all
    select subject_id, day, 'sleep.deep', case when has_stages then coalesce(deep, 0) end from chosen
    union all
    select subject_id, day, 'sleep.rem', case when has_stages then coalesce(rem, 0) end from chosen
    union all
    select subject_id, day, 'sleep.awake', case when has_stages then coalesce(awake, 0) end from chosen
    union all
    select subject_id, day, 'sleep.efficiency', case when asleep > 0 and in_bed > 0 then 100.0 * asleep / in_bed end from chosen
    union all
    select subject_id, day, 'sleep.start', start_minutes from chosen
    union all
    select subject_id, day, 'sleep.end', end_minutes from chosen
)

{{ wag_contract_rows('apple_health', 'long') }}
