-- Rolling z-score abnormality (DESIGN.md §4).
-- Grain: one row per (dataset, subject_id, metric_id, day) for every calendar day of the subject's
-- period T_s and every numeric metric the subject has data for (a date spine, so windows are
-- calendar days, not rows).
--   z_t        = |v_t - mu| / sigma                 (mu, sigma: subject_metric_stats, whole history;
--                macro wag_abnormality_z, the one definition of the score, macros/abnormality.sql)
--   zeta_k     = mean of z over the days of [t - k + 1, t] that have data (n_w of them), 12 decimals
--   zeta_all   = mean of z over every day up to t
--   NULL when n_w = 0 or sigma is 0 / undefined (never NaN or inf).
--   level_k    = tertile of zeta_k within the (subject, metric): low <= p33 < medium <= p66 < high
--                (quantile_cont = linear interpolation, over the days that have a value: the
--                samples of §4); 'missing' where v_t itself is missing (macro wag_abnormal_level).
-- Memory (2,000 subjects x 28 metrics x 365 days fit DuckDB's 4 GB limit): the windows run over narrow
-- rows (series key, day, value, z) and the names are joined back from `stats` at the end; the tertile
-- cuts are window aggregates over the series (no second pass over the windowed rows, no join back),
-- one quantile state per window size for both cuts (a CASE, not FILTER: Spark has no FILTER on window
-- aggregates). The spine is still joined with metric_values on the names: DuckDB's framed averages
-- depend in the last bits on the layout of the window's input, and a join on series_key (or a build
-- in subject batches) moved zeta_30/zeta_all by 1e-12 after rounding on ~1 row in 10^4, and a level.
-- Incremental by subject (macros/incremental.sql): a build recomputes only int_changed_subjects.
{{ config(materialized=wag_incremental_materialization(), incremental_strategy='append',
          pre_hook="{{ wag_delete_changed_subjects(this) }}") }}
with subject_metric_stats as (
    select * from {{ ref('subject_metric_stats') }}
),

metric_values as (
    select * from {{ ref('metric_values') }}
),

stats as (
    -- series_key: one 64-bit key per (dataset, subject, metric) series; windows partition by it
    select
        dataset, subject_id, metric_id, first_day, last_day, mean_value as mu, sd_value as sigma,
        {{ wag_group_key(['dataset', 'subject_id', 'metric_id']) }} as series_key
    from subject_metric_stats
    where n_days > 0 and {{ wag_changed_subject_filter('subject_id') }}
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
        sp.day,
        v.value,
        {{ wag_abnormality_z('v.value', 'sp.mu', 'sp.sigma') }} as z
    from spine as sp
    left join metric_values as v
        on v.dataset = sp.dataset and v.subject_id = sp.subject_id
       and v.metric_id = sp.metric_id and v.day = sp.day and v.value is not null
),

windows as (
    select
        series_key,
        day,
        value,
        z,
        -- k = 1 is the day itself: the mean of one z is z, and n_w is whether the day has a value
        round(z, 12)                                   as zeta_1,
        case when value is not null then 1 else 0 end  as n_w_1,
        {%- for k in [7, 14, 30] %}
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
    -- [p33, p66] of zeta_k over the series' days with a value, on every row of the series
    select
        *,
        {%- for k in ['1', '7', '14', '30', 'all'] %}
        {{ wag_quantile_cont_list('case when value is not null then zeta_' ~ k ~ ' end', [1.0 / 3, 2.0 / 3]) }}
            over (partition by series_key) as cuts_{{ k }}{{ ',' if not loop.last }}
        {%- endfor %}
    from windows
)

select
    s.dataset,
    s.subject_id,
    s.metric_id,
    c.day,
    c.value,
    c.z,
    {%- for k in ['1', '7', '14', '30', 'all'] %}
    c.zeta_{{ k }},
    cast(c.n_w_{{ k }} as integer) as n_w_{{ k }},
    {%- endfor %}
    {%- for k in ['1', '7', '14', '30', 'all'] %}
    {{ wag_abnormal_level('c.value', 'c.zeta_' ~ k, wag_list_item('c.cuts_' ~ k, 1), wag_list_item('c.cuts_' ~ k, 2)) }}
        as level_{{ k }}{{ ',' if not loop.last }}
    {%- endfor %}
from cuts as c
inner join stats as s on s.series_key = c.series_key
