{% macro wag_pair_mutual_information(binned, min_pairs) -%}
{#-
  Plug-in mutual information of every metric pair of each subject (DESIGN.md §3, MI_s), as a query with
  its own WITH, usable as a CTE body. Input `binned` (a CTE name): one row per (subject_key, metric_key,
  day) with the day's quantile bin (bin). Output: subject_key, metric_x, metric_y (metric_x < metric_y),
  mi in nats, for the pairs with at least `min_pairs` paired days (days on which both have a value):

      mi = sum over joint cells of n_xy / n * ln(n_xy * n / (n_x * n_y))
         = (sum n_xy ln n_xy - sum n_x ln n_x - sum n_y ln n_y) / n + ln n

  with n the paired days, n_xy the paired days in bin x of one metric and bin y of the other, n_x and
  n_y the marginals on the paired days. By engine (adapter.dispatch): DuckDB counts days with
  bitstrings, Spark joins the days.
-#}
  {{ return(adapter.dispatch('wag_pair_mutual_information', 'wag')(binned, min_pairs)) }}
{%- endmacro %}


{% macro default__wag_pair_mutual_information(binned, min_pairs) -%}
{#- One bitstring of the subject's days per (subject, metric, bin) (bitstring_agg; bit i = first day
    of the subject + i); n_xy = bit_count(days of bin x AND days of bin y), n_x = bit_count(days of bin
    x AND every day of the other metric). At 2,000 subjects x 28 metrics this replaces a join of 189 M
    subject-days and three windows over 17.6 M cells (26.1 s standalone) by AND-ing 25.3 M pairs of
    46-byte bitstrings (11.7 s), equal to 5e-15 relative (bench/RESULTS.md, issue 10). bitstring_agg
    needs its bounds as constants: the longest subject period T_s stored in subject_metric_stats
    (first_day .. last_day, which holds every day a time-varying metric has a value), read at execution. -#}
  {%- set max_offset = 0 -%}
  {%- if execute and model.resource_type == 'unit_test' -%}
    {#- a dbt unit test's inputs are CTEs, which run_query cannot read: a bound of 10 years holds any fixture -#}
    {%- set max_offset = 3660 -%}
  {%- elif execute -%}
    {%- set max_offset = run_query(
        "select coalesce(max(date_diff('day', first_day, last_day)), 0) from " ~ ref('subject_metric_stats')
      ).rows[0][0] | int -%}
  {%- endif %}
with subject_start as (
    select subject_key, min(day) as first_day
    from {{ binned }}
    group by subject_key
),

bin_days as (
    select b.subject_key, b.metric_key, b.bin,
           bitstring_agg(cast(date_diff('day', s.first_day, b.day) as integer), 0, {{ max_offset }}) as days
    from {{ binned }} as b
    inner join subject_start as s on s.subject_key = b.subject_key
    group by b.subject_key, b.metric_key, b.bin
),

metric_days as (
    select subject_key, metric_key, bit_or(days) as days
    from bin_days
    group by subject_key, metric_key
),

joint_terms as (
    -- per pair: n = paired days, sum of n_xy ln n_xy over the non-empty joint cells
    select subject_key, metric_x, metric_y, sum(n_xy) as n_pair, sum(n_xy * ln(n_xy)) as joint_term
    from (
        select a.subject_key, a.metric_key as metric_x, b.metric_key as metric_y,
               bit_count(a.days & b.days) as n_xy
        from bin_days as a
        inner join bin_days as b on b.subject_key = a.subject_key and a.metric_key < b.metric_key
    ) as cells
    where n_xy > 0
    group by subject_key, metric_x, metric_y
),

marginal_terms as (
    -- per ordered pair (metric, other): sum over the metric's bins of n ln n, n = its days in the bin on
    -- which the other metric has a value
    select subject_key, metric_key, other_key, sum(n * ln(n)) as marginal_term
    from (
        select b.subject_key, b.metric_key, o.metric_key as other_key, bit_count(b.days & o.days) as n
        from bin_days as b
        inner join metric_days as o on o.subject_key = b.subject_key and o.metric_key <> b.metric_key
    ) as bins_on_paired_days
    where n > 0
    group by subject_key, metric_key, other_key
)

select j.subject_key, j.metric_x, j.metric_y,
       (j.joint_term - mx.marginal_term - my.marginal_term) / j.n_pair + ln(j.n_pair) as mi
from joint_terms as j
inner join marginal_terms as mx
    on mx.subject_key = j.subject_key and mx.metric_key = j.metric_x and mx.other_key = j.metric_y
inner join marginal_terms as my
    on my.subject_key = j.subject_key and my.metric_key = j.metric_y and my.other_key = j.metric_x
where j.n_pair >= {{ min_pairs }}
{%- endmacro %}


{% macro spark__wag_pair_mutual_information(binned, min_pairs) -%}
{#- The joint bin counts from a join of the subject-days, the marginals on the paired days as window
    sums over the joint cells. -#}
with joint as (
    select
        a.subject_key,
        a.metric_key as metric_x,
        b.metric_key as metric_y,
        a.bin        as bin_x,
        b.bin        as bin_y,
        count(*)     as n_xy
    from {{ binned }} as a
    inner join {{ binned }} as b
        on b.subject_key = a.subject_key and b.day = a.day and a.metric_key < b.metric_key
    group by a.subject_key, a.metric_key, b.metric_key, a.bin, b.bin
),

cells as (
    select
        *,
        sum(n_xy) over (partition by subject_key, metric_x, metric_y)        as n_pair,
        sum(n_xy) over (partition by subject_key, metric_x, metric_y, bin_x) as n_x,
        sum(n_xy) over (partition by subject_key, metric_x, metric_y, bin_y) as n_y
    from joint
)

select subject_key, metric_x, metric_y, sum(n_xy / n_pair * ln(n_xy * n_pair / (n_x * n_y))) as mi
from cells
where n_pair >= {{ min_pairs }}
group by subject_key, metric_x, metric_y
{%- endmacro %}
