-- Per-subject, per-metric statistics (DESIGN.md §3).
-- Grain: one row per (dataset, subject_id, metric_id) for every numeric, time-varying metric that has
-- data for at least one subject of the dataset (a metric a subject never recorded has missing_fraction 1).
-- Static traits (catalog category Demographic) are left out: a survey date or a profile field repeated
-- on rows without measurements would otherwise stretch T_s.
--   T_s            = the subject's calendar days from its first to its last day with any (time-varying) data
--   missing_fraction = MD_{s,m} = |{t in T_s : v missing}| / |T_s|
--   mean_value, sd_value = mu_{s,m}, sigma_{s,m} (sample sd, n - 1) over non-missing days
--   cv             = sigma / |mu|; NULL when |mu| < 1e-9 or n_days < 2, and NULL for a metric whose
--                    catalog ratio_scale is false (a deviation around zero, a clock time, °C): a CV
--                    is only meaningful where zero means "none of it" (issue 9 item 7)
with metric_values as (
    select * from {{ ref('metric_values') }}
),

metric_catalog as (
    select * from {{ ref('metric_catalog') }}
),

time_varying as (
    -- static traits (catalog category Demographic: age, gender, BMI, personality) are not daily
    -- observations: they neither define the subject's period nor enter the per-day statistics
    select v.*
    from metric_values as v
    inner join metric_catalog as c on c.metric_id = v.metric_id
    where c.category <> 'Demographic'
),

numeric_values as (
    select dataset, subject_id, metric_id, day, value
    from time_varying
    where value is not null
),

subject_period as (
    select
        dataset,
        subject_id,
        min(day) as first_day,
        max(day) as last_day
    from time_varying
    group by dataset, subject_id
),

dataset_metrics as (
    select distinct n.dataset, n.metric_id, coalesce(c.ratio_scale, true) as ratio_scale
    from numeric_values as n
    left join metric_catalog as c on c.metric_id = n.metric_id
),

observed as (
    select
        dataset,
        subject_id,
        metric_id,
        count(*)            as n_days,
        min(day)            as first_value_day,
        max(day)            as last_value_day,
        avg(value)          as mean_value,
        stddev_samp(value)  as sd_value
    from numeric_values
    group by dataset, subject_id, metric_id
)

select
    p.dataset,
    p.subject_id,
    d.metric_id,
    p.first_day,
    p.last_day,
    cast({{ wag_days_between_count('p.first_day', 'p.last_day') }} + 1 as integer)        as n_period_days,
    cast(coalesce(o.n_days, 0) as integer)                                as n_days,
    1.0 - coalesce(o.n_days, 0) / ({{ wag_days_between_count('p.first_day', 'p.last_day') }} + 1.0)
                                                                           as missing_fraction,
    o.first_value_day,
    o.last_value_day,
    o.mean_value,
    case when o.n_days >= 2 then o.sd_value end                            as sd_value,
    case
        when d.ratio_scale and o.n_days >= 2 and abs(o.mean_value) >= 1e-9 then o.sd_value / abs(o.mean_value)
    end                                                                    as cv
from subject_period as p
inner join dataset_metrics as d on d.dataset = p.dataset
left join observed as o
    on o.dataset = p.dataset and o.subject_id = p.subject_id and o.metric_id = d.metric_id
