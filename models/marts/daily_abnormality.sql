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
-- Exact window sums (issue 31): z is summed as a 64-bit integer, zq = round(z * 2^40) (z <= sqrt(n - 1)
-- for a series of n values, so zq and the sums fit), one running sum per series and the k-day sums as
-- differences of running sums (lag k: the spine has one row per calendar day). Integer sums do not
-- depend on how the rows are laid out, so a full build, an incremental build of a few subjects and
-- Spark give the same zeta to the last bit (DuckDB's framed double averages moved in the last bits
-- with the layout of the window's input). zeta is within 5e-13 of the mean of the double z before the
-- rounding to 12 decimals, which keeps days whose windows hold the same values on the same zeta.
-- Memory (2,000 subjects x 28 metrics x 365 days fit DuckDB's 3 GB limit): the windows run over narrow
-- rows (series key, day, value, z) and the names are joined back from `stats` at the end; the tertile
-- cuts are window aggregates over the series (no second pass over the windowed rows, no join back),
-- one quantile state per window size for both cuts (a CASE, not FILTER: Spark has no FILTER on window
-- aggregates). metric_values meets the spine on (series key, day), integers (9 % of the CPU at 500
-- subjects against the four name columns).
-- Incremental by subject (macros/incremental.sql): a build recomputes only int_changed_subjects.
-- Runs after the correlation models (an ordering edge only; see correlations_individual.sql).
-- depends_on: {{ ref('correlations_population_snapshots') }}
{{ config(materialized=wag_incremental_materialization(), incremental_strategy='append',
          pre_hook="{{ wag_delete_changed_subjects(this) }}") }}
{%- set zq_scale = 'cast(' ~ 2 ** 40 ~ ' as double)' %}  {#- 2^40: zq = round(z * 2^40) #}
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
    left join (
        select {{ wag_group_key(['dataset', 'subject_id', 'metric_id']) }} as series_key, day, value
        from metric_values
        where value is not null and {{ wag_changed_subject_filter('subject_id') }}
    ) as v
        on v.series_key = sp.series_key and v.day = sp.day
),

running as (
    -- per series up to t: the sum of zq (exact integers) and the days with a value. Within a series
    -- sigma is one number, so z is present exactly where the value is (sigma > 0) or nowhere (then the
    -- sums are NULL and so is every zeta): the days with a value count the z's too.
    select
        series_key,
        day,
        value,
        z,
        sum(cast(round(z * {{ zq_scale }}) as bigint)) over w as zq_run,
        count(value) over w as nv_run
    from observed
    window w as (partition by series_key order by day rows between unbounded preceding and current row)
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
        -- the k calendar days ending on t: running sums at t minus those at t - k (rows = days)
        round((zq_run - coalesce(lag(zq_run, {{ k }}) over w, 0)) / {{ zq_scale }}
              / nullif(nv_run - coalesce(lag(nv_run, {{ k }}) over w, 0), 0), 12) as zeta_{{ k }},
        nv_run - coalesce(lag(nv_run, {{ k }}) over w, 0)                    as n_w_{{ k }},
        {%- endfor %}
        round(zq_run / {{ zq_scale }} / nullif(nv_run, 0), 12)              as zeta_all,
        nv_run                                                               as n_w_all
    from running
    window w as (partition by series_key order by day)
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
