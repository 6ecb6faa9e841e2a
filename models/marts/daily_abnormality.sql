-- Rolling z-score abnormality (DESIGN.md §4).
-- Grain: one row per (dataset, subject_id, metric_id, day) for every calendar day of the subject's
-- period T_s and every numeric metric the subject has data for (a date spine, so windows are
-- calendar days, not rows).
--   z_t        = |v_t - mu| / sigma                 (mu, sigma: subject_metric_stats, whole history)
--   zeta_k     = mean of z over the days of [t - k + 1, t] that have data (n_w of them), 12 decimals
--   zeta_all   = mean of z over every day up to t
--   NULL when n_w = 0 or sigma is 0 / undefined (never NaN or inf).
--   level_k    = tertile of zeta_k within the (subject, metric): low <= p33 < medium <= p66 < high
--                (quantile_cont = linear interpolation, over the days that have a value: the
--                samples of §4); 'missing' where v_t itself is missing.
with stats as (
    -- series_key: one 64-bit key per (dataset, subject, metric) series; windows partition by it
    select
        dataset, subject_id, metric_id, first_day, last_day, mean_value as mu, sd_value as sigma,
        {{ wag_group_key(['dataset', 'subject_id', 'metric_id']) }} as series_key
    from {{ ref('subject_metric_stats') }}
    where n_days > 0
),

spine as (
    select
        series_key, dataset, subject_id, metric_id, mu, sigma,
        {{ wag_days_between('first_day', 'last_day') }} as day
    from stats
),

observed as (
    select
        sp.series_key,
        sp.dataset,
        sp.subject_id,
        sp.metric_id,
        sp.day,
        v.value,
        case when sp.sigma > 0 then abs(v.value - sp.mu) / sp.sigma end as z
    from spine as sp
    left join {{ ref('metric_values') }} as v
        on v.dataset = sp.dataset and v.subject_id = sp.subject_id
       and v.metric_id = sp.metric_id and v.day = sp.day and v.value is not null
),

windows as (
    select
        *,
        {%- for k in [1, 7, 14, 30] %}
        -- rounded to 12 decimals: days whose windows hold the same values get the same zeta (and so
        -- the same level) whatever the summation order, instead of flipping across a tertile cut
        round(avg(z) over (partition by series_key order by day
                     rows between {{ k - 1 }} preceding and current row), 12)  as zeta_{{ k }},
        count(value) over (partition by series_key order by day
                     rows between {{ k - 1 }} preceding and current row)  as n_w_{{ k }},
        {%- endfor %}
        round(avg(z) over (partition by series_key order by day
                     rows between unbounded preceding and current row), 12) as zeta_all,
        count(value) over (partition by series_key order by day
                     rows between unbounded preceding and current row)    as n_w_all
    from observed
),

cuts as (
    select
        series_key,
        {%- for k in ['1', '7', '14', '30', 'all'] %}
        {{ wag_quantile_cont('zeta_' ~ k, 1.0 / 3) }} filter (where value is not null) as p33_{{ k }},
        {{ wag_quantile_cont('zeta_' ~ k, 2.0 / 3) }} filter (where value is not null) as p66_{{ k }}{{ ',' if not loop.last }}
        {%- endfor %}
    from windows
    group by series_key
)

select
    w.dataset,
    w.subject_id,
    w.metric_id,
    w.day,
    w.value,
    w.z,
    {%- for k in ['1', '7', '14', '30', 'all'] %}
    w.zeta_{{ k }},
    cast(w.n_w_{{ k }} as integer) as n_w_{{ k }},
    {%- endfor %}
    {%- for k in ['1', '7', '14', '30', 'all'] %}
    case
        when w.value is null then 'missing'
        when w.zeta_{{ k }} is null then null
        when w.zeta_{{ k }} <= c.p33_{{ k }} then 'low'
        when w.zeta_{{ k }} <= c.p66_{{ k }} then 'medium'
        else 'high'
    end as level_{{ k }}{{ ',' if not loop.last }}
    {%- endfor %}
from windows as w
inner join cuts as c using (series_key)
