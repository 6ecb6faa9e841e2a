{#-
  Apple Health quantity records -> staging contract rows (issue 28; DESIGN.md §2 "A person's own export").

  Input : stg_apple_health__records (one row per <Record> of each person's export.xml), seed
          apple_health_types (record type + unit -> raw field, unit factor, aggregation).
  Output: one row per (subject_id, local day, raw_field), value in the raw field's unit
          (raw_field_map_apple_health converts to the catalog unit): steps, distance_walking_running
          (km), active_energy / basal_energy / energy_total (kcal), exercise_time (min), heart_rate,
          resting_heart_rate, respiratory_rate (per min), oxygen_saturation (%), vo2_max, bmi.
  Rules
  * Local day: each record's own UTC offset decides it. Apple writes the local wall clock with that
    offset ('2024-03-01 00:30:00 +0200'), so the day is the written date of startDate (00:30 +0200 is
    March 1st, though 22:30 UTC on February 29th): never the importer's time zone, so travel and
    DST days land where the person lived them. A sample spanning midnight counts on its start day
    (Apple splits long samples; most are minutes long).
  * Duplicates count once: a record repeated inside a <Correlation> (Apple also writes blood pressure
    and food records there) and at top level, or written twice, is one record when type, source,
    unit, value and both dates are equal.
  * Additive quantities (aggregation 'sum': steps, distance, energy, exercise minutes) are summed per
    source (sourceName: "Anna's iPhone", "Anna's Apple Watch", an app) and day, then the MAXIMUM
    across sources is the day's value: the watch and the phone both count the same steps, so summing
    them would double them, while the larger one misses least. A negative amount is quarantined in
    raw_rejected and left out of the sum.
  * Other quantities (aggregation 'mean'): the mean of the day's samples over all sources.
  * energy_total = active_energy + basal_energy, on days that have both (the catalog's energy
    expenditure includes basal metabolism; a day with active energy only would understate it).
  * Units: a type's units are brought to one unit by the seed's factor before summing (mi -> km,
    kJ -> kcal); a type or unit the seed does not list is counted in stg_apple_health__unmapped_types,
    not loaded and not an error. Sleep is stg_apple_health__sleep.
  * No wear rule: Apple's export carries no wear evidence per day (DESIGN.md §2's rule needs one), so
    a day with samples has its values; a day without samples has no row.
-#}
with records as (
    select * from {{ ref('stg_apple_health__records') }}
),

types as (
    select * from {{ ref('apple_health_types') }}
),

distinct_records as (
    -- one row per distinct record: the copy inside a Correlation and the top-level one are one
    select subject_id, record_type, source_name, unit, value_text, start_text, end_text,
           any_value(value) as value, any_value(start_local) as start_local
    from records
    where value is not null and start_local is not null
    group by subject_id, record_type, source_name, unit, value_text, start_text, end_text
),

typed as (
    select
        r.subject_id,
        cast(r.start_local as date) as day,
        t.raw_field,
        t.aggregation,
        coalesce(r.source_name, '') as source_name,
        r.value * t.factor as value
    from distinct_records as r
    inner join types as t on t.record_type = r.record_type and t.unit = r.unit
    where not (t.aggregation = 'sum' and r.value < 0)
),

per_source as (
    select subject_id, day, raw_field, aggregation, source_name, sum(value) as total, count(*) as n
    from typed
    group by subject_id, day, raw_field, aggregation, source_name
),

per_day as (
    select
        subject_id,
        day,
        raw_field,
        case when any_value(aggregation) = 'sum' then max(total)   -- the larger source's sum
             else sum(total) / sum(n) end as value                  -- the mean of all samples
    from per_source
    group by subject_id, day, raw_field
),

energy_total as (
    select subject_id, day, 'energy_total' as raw_field, sum(value) as value
    from per_day
    where raw_field in ('active_energy', 'basal_energy')
    group by subject_id, day
    having count(*) = 2
),

long as (
    select subject_id, day, raw_field, value from per_day
    union all
    select subject_id, day, raw_field, value from energy_total
)

{{ wag_contract_rows('apple_health', 'long') }}
