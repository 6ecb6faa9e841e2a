-- Query tuples of the evaluation (DESIGN.md §10; abnormal levels of §4), sampled in SQL from the
-- selected participants (participant_selection.is_selected).
--
-- Single-metric tuples (kind 'single'): a numeric metric, a day t of the subject's period, a window
-- k in {1, 7, 14, 30, all} and the abnormal level of (s, m, t, k):
--   * 'missing' when the metric has no value on t (§4);
--   * else the tertile (low <= p33 < medium <= p66 < high, quantile_cont) of zeta_{t,k} among the
--     samples zeta_{t',k}, t' <= t with a value, where every zeta uses the subject's mean and sample
--     sd over the days <= t. This is §4's level "as of t": daily_abnormality's level_k uses the
--     whole history for mu, sigma and the cuts (its t = the subject's last day special case), so it
--     would look ahead; it is used here only for its date spine (which days are missing) and
--     n_w_all (days with data up to t).
-- Multi-metric tuples (kind 'multi'): a subject-day t and 2 or 3 numeric metrics with a value on t
-- (metrics sharing a graph edge with the first one preferred), a window drawn round-robin in a
-- seeded order (so every window appears); abnormal_level NULL.
-- Every candidate needs var('eval_min_history_days') (default 14) days with data before t for each
-- of its metrics. No column uses a day after t.
--
-- Seeded: every draw is md5(<tuple fields> || var('eval_seed')). Stratified: single tuples are
-- taken round by round over the strata (dataset x window x level) — round r takes the r-th draw of
-- every stratum — and within a round the strata that first cover a dataset, a window or a level come
-- first, so any prefix of sample_order of at least (#datasets + 5 + 4) single tuples shows every
-- dataset, window and level that has candidates. Multi tuples are taken round-robin over datasets.
-- Size: var('eval_n_tuples'); a share var('eval_multi_share') (default 0.3) is multi-metric. The two
-- kinds are interleaved in sample_order in that ratio, so a prefix of sample_order is a smaller
-- sample of the same design (`wag eval queries --n N` takes such a prefix).
{%- set n_tuples = var('eval_n_tuples') | int %}
{%- set seed = var('eval_seed') %}
{%- set min_history = var('eval_min_history_days', 14) | int %}
{%- set multi_share = var('eval_multi_share', 0.3) | float %}
{%- set n_multi = (n_tuples * multi_share) | round(0, 'floor') | int %}
{%- set n_single = n_tuples - n_multi %}
{#- candidates kept per (dataset, window, value present/missing) before the levels are computed #}
{%- set pool = [24, ((n_single / 5) | round(0, 'ceil') | int)] | max %}
{%- set windows = [('1', 1), ('7', 7), ('14', 14), ('30', 30), ('all', none)] %}

with selected as (
    select dataset, subject_id
    from {{ ref('participant_selection') }}
    where is_selected
),

abnormality as (
    select dataset, subject_id, metric_id, day, value, n_w_all
    from {{ ref('daily_abnormality') }}
),

metric_values as (
    select subject_id, metric_id, day, value
    from {{ ref('metric_values') }}
    where value is not null
),

edges as (
    select node_a, node_b
    from {{ ref('edges') }}
),

windows as (
    {%- for label, k in windows %}
    select '{{ label }}' as window_label, {{ 'cast(null as integer)' if k is none else k }} as window_days,
           {{ loop.index }} as window_order
    {{- ' union all' if not loop.last }}
    {%- endfor %}
),

-- subject-metric-days of the selected subjects with enough history before t
eligible_days as (
    select
        a.dataset,
        a.subject_id,
        a.metric_id,
        a.day,
        a.value,
        a.n_w_all - case when a.value is null then 0 else 1 end as n_days_before
    from abnormality as a
    inner join selected as s
        on s.dataset = a.dataset and s.subject_id = a.subject_id
    where a.n_w_all - case when a.value is null then 0 else 1 end >= {{ min_history }}
),

-- ------------------------------------------------------------------ single-metric tuples
single_candidates as (
    select
        d.*,
        w.window_label,
        w.window_days,
        md5(d.subject_id || '|' || d.metric_id || '|' || cast(d.day as string) || '|'
            || w.window_label || '|{{ seed }}') as draw
    from eligible_days as d
    cross join windows as w
),

single_pool as (
    select *
    from (
        select
            *,
            row_number() over (
                partition by dataset, window_label, value is null order by draw
            ) as pool_rank
        from single_candidates
    ) as ranked
    where pool_rank <= {{ pool }}
),

-- the pooled tuples with a value on t: their history up to t (days with a value)
pool_history as (
    select
        p.draw,
        p.window_label,
        p.day as ref_day,
        v.day as history_day,
        v.value as history_value
    from single_pool as p
    inner join metric_values as v
        on v.subject_id = p.subject_id and v.metric_id = p.metric_id and v.day <= p.day
    where p.value is not null
),

baseline as (
    select draw, avg(history_value) as mu, stddev_samp(history_value) as sigma
    from pool_history
    group by draw
),

history_z as (
    select
        h.*,
        {{ wag_abnormality_z('h.history_value', 'b.mu', 'b.sigma') }} as z
    from pool_history as h
    inner join baseline as b on b.draw = h.draw
),

history_zeta as (
    select
        draw,
        ref_day,
        history_day,
        -- rounded to 12 decimals as in daily_abnormality: mu and sigma are sums over metric_values in
        -- its stored order, which an incremental build (changed subjects appended) and a full build lay
        -- out differently, so the last bits of zeta differ and a zeta on a tertile cut changed level
        round(case window_label
            {%- for label, k in windows if k is not none %}
            when '{{ label }}' then avg(z) over (
                partition by draw order by history_day
                range between interval {{ k - 1 }} days preceding and current row)
            {%- endfor %}
            else avg(z) over (
                partition by draw order by history_day
                rows between unbounded preceding and current row)
        end, 12) as zeta
    from history_z
),

level_cuts as (
    select
        draw,
        quantile_cont(zeta, 1.0 / 3) as p33,
        quantile_cont(zeta, 2.0 / 3) as p66,
        max(case when history_day = ref_day then zeta end) as zeta
    from history_zeta
    group by draw
),

single_levels as (
    select
        p.*,
        c.zeta,
        {{ wag_abnormal_level('p.value', 'c.zeta', 'c.p33', 'c.p66') }} as abnormal_level
    from single_pool as p
    left join level_cuts as c on c.draw = p.draw
),

single_rounds as (
    select
        *,
        row_number() over (partition by dataset, window_label, abnormal_level order by draw) as stratum_round
    from single_levels
    where abnormal_level is not null
),

strata as (
    select
        dataset,
        window_label,
        abnormal_level,
        stratum_draw,
        least(
            row_number() over (partition by dataset order by stratum_draw),
            row_number() over (partition by window_label order by stratum_draw),
            row_number() over (partition by abnormal_level order by stratum_draw)
        ) as first_cover
    from (
        select distinct
            dataset,
            window_label,
            abnormal_level,
            md5(dataset || '|' || window_label || '|' || abnormal_level || '|{{ seed }}') as stratum_draw
        from single_rounds
    ) as s
),

single_picked as (
    select *
    from (
        select
            r.*,
            row_number() over (order by r.stratum_round, st.first_cover, st.stratum_draw) as kind_order
        from single_rounds as r
        inner join strata as st
            on st.dataset = r.dataset and st.window_label = r.window_label
           and st.abnormal_level = r.abnormal_level
    ) as ordered
    where kind_order <= {{ n_single }}
),

-- ------------------------------------------------------------------ multi-metric tuples
multi_days as (
    select
        dataset,
        subject_id,
        day,
        md5(subject_id || '|' || cast(day as string) || '|multi|{{ seed }}') as draw
    from eligible_days
    where value is not null
    group by dataset, subject_id, day
    having count(*) >= 2
),

multi_picked_days as (
    select *
    from (
        select
            d.*,
            row_number() over (order by d.dataset_round, md5(d.dataset || '|{{ seed }}')) as kind_order
        from (
            select *, row_number() over (partition by dataset order by draw) as dataset_round
            from multi_days
        ) as d
    ) as ordered
    where kind_order <= {{ n_multi }}
),

multi_shape as (
    select
        p.*,
        w.window_label,
        w.window_days,
        2 + cast(floor((p.dataset_round - 1) / 5) as integer) % 2 as n_metrics
    from multi_picked_days as p
    inner join windows as w on w.window_order = 1 + (p.dataset_round - 1) % 5
),

multi_candidates as (
    select
        m.draw,
        e.metric_id,
        md5(e.metric_id || '|' || m.draw) as metric_draw
    from multi_shape as m
    inner join eligible_days as e
        on e.subject_id = m.subject_id and e.day = m.day and e.value is not null
),

multi_first as (
    select draw, metric_id as first_metric
    from (
        select *, row_number() over (partition by draw order by metric_draw) as rn
        from multi_candidates
    ) as r
    where rn = 1
),

multi_metrics as (
    select c.draw, c.metric_id, r.metric_rank
    from multi_candidates as c
    inner join (
        select
            c.draw,
            c.metric_id,
            row_number() over (
                partition by c.draw
                order by
                    case when c.metric_id = f.first_metric then 0
                         when e.node_a is not null then 1
                         else 2 end,
                    c.metric_draw
            ) as metric_rank
        from multi_candidates as c
        inner join multi_first as f on f.draw = c.draw
        left join edges as e
            on e.node_a = least(c.metric_id, f.first_metric)
           and e.node_b = greatest(c.metric_id, f.first_metric)
    ) as r on r.draw = c.draw and r.metric_id = c.metric_id
),

multi_tuples as (
    select
        s.dataset,
        s.subject_id,
        s.day,
        s.window_label,
        s.window_days,
        s.kind_order,
        list(mm.metric_id order by mm.metric_rank) as metrics
    from multi_shape as s
    inner join multi_metrics as mm
        on mm.draw = s.draw and mm.metric_rank <= s.n_metrics
    group by s.dataset, s.subject_id, s.day, s.window_label, s.window_days, s.kind_order
),

-- ------------------------------------------------------------------ both kinds
tuples as (
    select
        'single' as kind,
        dataset,
        subject_id,
        [metric_id] as metrics,
        day as reference_day,
        window_label,
        window_days,
        abnormal_level,
        zeta as zeta_asof,
        n_days_before + case when value is null then 0 else 1 end as n_history_days,
        kind_order,
        kind_order / {{ 1 - multi_share if multi_share < 1 else 1 }} as interleave_key
    from single_picked
    union all
    select
        'multi' as kind,
        dataset,
        subject_id,
        metrics,
        day as reference_day,
        window_label,
        window_days,
        cast(null as string) as abnormal_level,
        cast(null as double) as zeta_asof,
        cast(null as integer) as n_history_days,
        kind_order,
        kind_order / {{ multi_share if multi_share > 0 else 1 }} as interleave_key
    from multi_tuples
)

select
    substr(md5(kind || '|' || subject_id || '|' || array_to_string(metrics, ',') || '|'
               || cast(reference_day as string) || '|' || window_label || '|{{ seed }}'), 1, 16) as tuple_id,
    kind,
    dataset,
    subject_id,
    metrics,
    metrics[1] as metric_id,
    len(metrics) as n_metrics,
    reference_day,
    window_label,
    window_days,
    abnormal_level,
    zeta_asof,
    cast(n_history_days as integer) as n_history_days,
    cast({{ seed }} as integer) as seed,
    cast(row_number() over (order by interleave_key, kind desc, kind_order) as integer) as sample_order
from tuples
