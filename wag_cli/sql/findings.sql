-- Findings of an answer (DESIGN.md §11): what a retrieved node says about the question, per node of
-- the subgraph. Python only words these rows (wag_cli/answer/findings.py).
--
-- Parameters: $subject, $ref_day (t), $window_days (INTEGER, NULL = all days up to t), $nodes: a list
-- of {metric_id, primary_node, role, r, n} — role 'primary', 'neighbour' or 'companion' (shown with its
-- primary: time asleep beside time in bed); r / n the subject's own
-- Spearman rho between the neighbour and its primary as of t and its days (from wag_retrieve; NULL
-- when not valid).
--
-- "Usual" is one baseline for the whole answer: the days before the period (wag_node_window's
-- baseline_mean / baseline_sd). Clock times (catalog unit 'minutes from local midnight of the wake-up
-- day': bedtime, wake time) use circular statistics on the 24-hour circle: circular means, the circular
-- SD sqrt(-2 ln R) and differences taken the short way round, so 23:40 and 00:00 average to 23:50. A partial day — fewer than half the subject's typical number of
-- metrics with data (median over days <= t), or, where wear is recorded, fewer than half the typical
-- wear minutes — matters for a daily amount (a catalog unit that adds up over a day: minutes, steps,
-- kcal, m, calls, unlocks), which a truncated recording undercounts: such a day is named as partial,
-- is never an unusual day and is left out of the period's mean (unless every day of the period is
-- partial). A 0 of a daily amount that is rarely 0 for the subject (under 5 % of at least 10 days
-- before the period) counts as partial too: more likely not recorded than a real 0. A level (bpm, a
-- score, a once-a-day check-in) is not undercounted and keeps every day.
--   d = (period_mean - baseline_mean) / baseline_sd.
-- unusual_days: the period's non-partial days with |value - baseline_mean| / baseline_sd >= 2, every
-- one of them (ties included), most unusual first; notable_days: those with |z| >= 1.5, by day.
-- finding (neighbours only), with d_x the primary's d and d_y the neighbour's:
--   'no_data'        no value in the period;
--   'same_construct' declared in seed same_construct_pairs, or own |r| >= 0.9 over >= 30 days;
--   'too_few'        fewer than 3 days with data in a period of 3 days or more: too few to call it usual;
--   'no_baseline'    no days before the period to compare with;
--   'explains'       |d_y| >= 0.5, own |r| >= 0.3, |d_x| >= 0.2 and sign(d_y) * sign(r) = sign(d_x),
--                    and the neighbour is in another catalog category than the asked metric (a part of
--                    the same construct — REM sleep for sleep time, efficiency for time in bed — moves
--                    with it by construction and explains nothing: it is 'moved');
--   'opposite'       |d_y| >= 0.5, own |r| >= 0.3, |d_x| >= 0.2 but sign(d_y) * sign(r) <> sign(d_x): it
--                    moved the other way;
--   'moved'          |d_y| >= 0.5 without a valid own link (|r| < 0.3 or none) or without a change of
--                    the asked metric to explain;
--   'unchanged'      |d_y| < 0.5.
with nodes as (
    select n.metric_id, n.primary_node, n.role, n.r, n.n
    from (select unnest($nodes) as n)
),

window_stats as (
    select metric_id, n_window_days, baseline_mean, baseline_sd, n_baseline_days
    from wag_node_window($subject, $ref_day, $window_days)
),

day_load as (
    select day, count(*) as n_metrics
    from metric_values
    where subject_id = $subject and day <= $ref_day
    group by day
),

wear as (
    select day, wear_minutes
    from int_wear_days
    where subject_id = $subject and day <= $ref_day
),

typical as (
    select
        (select median(n_metrics) from day_load) as typical_metrics,
        (select median(wear_minutes) from wear where wear_minutes > 0) as typical_wear
),

partial_days as (
    select d.day
    from day_load as d
    cross join typical as t
    left join wear as w on w.day = d.day
    where d.n_metrics < 0.5 * t.typical_metrics
       or (w.wear_minutes is not null and t.typical_wear is not null and w.wear_minutes < 0.5 * t.typical_wear)
),

baseline_clock as (
    -- clock times (bedtime, wake time: minutes from midnight of the wake-up day) on the 24-hour circle:
    -- circular mean angle and mean resultant length R over the days before the period
    select v.metric_id,
           atan2(avg(sin(radians(v.value / 4.0))), avg(cos(radians(v.value / 4.0)))) as theta,
           sqrt(pow(avg(sin(radians(v.value / 4.0))), 2) + pow(avg(cos(radians(v.value / 4.0))), 2)) as r_len,
           count(*) as n
    from metric_values as v
    inner join metric_catalog as c on c.metric_id = v.metric_id
    where c.unit like 'minutes from%'
      and v.subject_id = $subject and v.value is not null
      and $window_days is not null and v.day <= $ref_day - cast($window_days as integer)
      and v.metric_id in (select metric_id from nodes)
    group by v.metric_id
),

centre as (
    -- the usual level a metric's period is compared with: the days before the period; for a clock time
    -- the circular mean (in minutes from midnight, -720..720) and circular SD sqrt(-2 ln R) on the clock
    select s.metric_id,
           b.metric_id is not null as is_clock,
           case when b.metric_id is not null then degrees(b.theta) * 4 else s.baseline_mean end as base_mean,
           case when b.metric_id is not null
                then case when b.n >= 2 and b.r_len < 1 then sqrt(-2 * ln(b.r_len)) * 1440 / (2 * pi()) end
                else s.baseline_sd end as base_sd
    from window_stats as s
    left join baseline_clock as b using (metric_id)
),

zero_share as (
    -- how often a daily amount is exactly 0 for this subject before the period: a 0 on a metric that is
    -- rarely 0 (under 5 % of at least 10 earlier days) is more likely a day not recorded (a phone that
    -- logged nothing) than a real 0, and is left out like a partial day (blind readers, issue 27)
    select v.metric_id, avg(case when v.value = 0 then 1.0 else 0.0 end) as share, count(*) as n
    from metric_values as v
    where v.subject_id = $subject and v.value is not null
      and $window_days is not null and v.day <= $ref_day - cast($window_days as integer)
    group by v.metric_id
),

period_values as (
    select v.metric_id, v.day, v.value,
           p.day is not null
             or (v.value = 0 and c.unit in ('minutes', 'steps', 'kcal', 'm', 'calls', 'unlocks')
                 and z.n >= 10 and z.share < 0.05) as is_partial,
           c.unit in ('minutes', 'steps', 'kcal', 'm', 'calls', 'unlocks') as is_amount
    from metric_values as v
    left join partial_days as p on p.day = v.day
    left join metric_catalog as c on c.metric_id = v.metric_id
    left join zero_share as z on z.metric_id = v.metric_id
    where v.subject_id = $subject
      and v.value is not null
      and v.day <= $ref_day
      and ($window_days is null or v.day > $ref_day - cast($window_days as integer))
      and v.metric_id in (select metric_id from nodes)
),

scored as (
    select
        pv.metric_id, pv.day, pv.value, pv.is_partial, pv.is_amount, ce.is_clock,
        -- a clock time's distance from the usual time is the shorter way round the clock
        case when ce.is_clock
             then (pv.value - ce.base_mean) - 1440 * floor((pv.value - ce.base_mean + 720) / 1440)
             else pv.value - ce.base_mean end / nullif(ce.base_sd, 0) as z
    from period_values as pv
    inner join centre as ce using (metric_id)
),

per_metric as (
    select
        metric_id,
        count(*) filter (where not (is_partial and is_amount)) as n_full_days,
        -- amounts leave partial days out unless no other day is left; levels keep every day
        case when bool_or(is_clock)
             then degrees(atan2(avg(sin(radians(value / 4.0))), avg(cos(radians(value / 4.0))))) * 4
             when bool_or(is_amount) and count(*) filter (where not is_partial) > 0
             then avg(value) filter (where not is_partial) else avg(value) end as period_mean,
        bool_or(is_clock) as is_clock,
        count(*) filter (where not is_partial or not is_amount) as n_mean_days,
        list({'day': day, 'value': value, 'z': z} order by abs(z) desc, day)
            filter (where not (is_partial and is_amount) and abs(z) >= 2) as unusual_days,
        list({'day': day, 'value': value} order by day) filter (where is_partial and is_amount) as partial_days,
        -- days 1.5 SD or more from the usual level: a neighbour's, matched with the asked metric's unusual
        -- days, says what else was off on those days
        list({'day': day, 'z': z} order by day) filter (where not (is_partial and is_amount) and abs(z) >= 1.5)
            as notable_days
    from scored
    group by metric_id
),

node_stats as (
    select
        n.*,
        coalesce(s.n_window_days, 0) as n_window_days,
        ce.base_mean as baseline_mean,
        ce.base_sd as baseline_sd,
        coalesce(s.n_baseline_days, 0) as n_baseline_days,
        m.n_full_days,
        m.n_mean_days,
        m.period_mean,
        case when s.n_baseline_days >= 2 and ce.base_sd > 0 and m.period_mean is not null
             then case when ce.is_clock
                       then (m.period_mean - ce.base_mean) - 1440 * floor((m.period_mean - ce.base_mean + 720) / 1440)
                       else m.period_mean - ce.base_mean end / ce.base_sd end as d,
        coalesce(m.unusual_days, []) as unusual_days,
        coalesce(m.partial_days, []) as partial_days,
        coalesce(m.notable_days, []) as notable_days
    from nodes as n
    left join window_stats as s using (metric_id)
    left join centre as ce using (metric_id)
    left join per_metric as m using (metric_id)
),

declared as (
    select node_a, node_b from same_construct_pairs
)

select
    x.metric_id,
    x.primary_node,
    x.role,
    x.r,
    x.n,
    x.n_window_days,
    x.n_full_days,
    x.n_mean_days,
    x.baseline_mean,
    x.baseline_sd,
    x.n_baseline_days,
    x.period_mean,
    x.d,
    x.unusual_days,
    x.partial_days,
    x.notable_days,
    p.d as d_primary,
    case
        when x.role <> 'neighbour' then null
        when x.n_window_days = 0 then 'no_data'
        when exists (select 1 from declared as c
                     where c.node_a = least(x.metric_id, x.primary_node) and c.node_b = greatest(x.metric_id, x.primary_node))
             or (abs(x.r) >= 0.9 and x.n >= 30) then 'same_construct'
        when x.n_window_days < 3 and coalesce($window_days, 3) >= 3 then 'too_few'
        when x.d is null then 'no_baseline'
        when abs(x.d) < 0.5 then 'unchanged'
        when abs(x.r) >= 0.3 and abs(p.d) >= 0.2 and sign(x.d) * sign(x.r) = sign(p.d)
             and cx.category is distinct from cp.category then 'explains'
        when abs(x.r) >= 0.3 and abs(p.d) >= 0.2 and sign(x.d) * sign(x.r) <> sign(p.d) then 'opposite'
        else 'moved'
    end as finding
from node_stats as x
left join node_stats as p on p.metric_id = x.primary_node and p.role = 'primary'
left join metric_catalog as cx on cx.metric_id = x.metric_id
left join metric_catalog as cp on cp.metric_id = x.primary_node
order by x.role = 'neighbour', x.primary_node, x.metric_id
