{#-
  Spearman correlations of every prior edge without a paired table (DESIGN.md §5; issue 31).

  Pairwise-complete Spearman ranks each pair's common days. For a series x on days D_x and a partner
  y on days D_y, the average rank of x on a common day d in C = D_x ∩ D_y among the common days is

      rank_C(d) = rank_Dx(d) - #{m in D_x \ D_y : x_m < x_d} - 1/2 #{m in D_x \ D_y : x_m = x_d}

  (the days of x without y only move d's rank down; tests/test_corrected_ranks.py checks it against
  scipy). So each (subject, metric) series is ranked once (individual: over the subject's days;
  pooled: over the dataset's subject-days), the partner's missing days give the correction, and the
  Pearson sums of the corrected ranks are accumulated per (subject, edge) over the common days in one
  hash join + aggregate: no row per pair is stored, no pair is sorted.

  Integers throughout: doubled ranks. Every row carries one bit field per metric of its dataset, set
  to 1 where that metric is missing on the row's (subject, day). A series is ranked by one sort of its
  tie groups (value, count c, summed fields m): for a group ending at position b (the running count),
      2 x average rank   = 2b - c + 1
      2 x correction(y)  = 2 x (running sum of m, field y) - m_y   (fields never borrow: running >= m)
  and the corrected doubled rank of a row on a common day is 2 x rank - field y of the corrections.
  The join of the two ends is on one integer row key ((subject, day) id x metrics + metric), the node_a
  end's corrected rank computed before it. Pearson from exact integer sums:
      rho = (n Σab - Σa Σb) / sqrt((n Σaa - (Σa)^2) (n Σbb - (Σb)^2))
  with sums of 64-bit products in HUGEINT; a variance of 0 is the zero_variance rule of §5.

  Field limits (wag_corrected_rank_layout, checked on the data at run time, never assumed): a field
  holds at most 2 x the longest series (individual: a subject's days of one metric; pooled: a
  dataset's subject-days of one metric), `bits` = bit length of that bound; a HUGEINT word holds
  floor(127 / bits) fields, and a dataset with M edge metrics needs ceil(M / fields) words. Above
  var('corrected_rank_max_words') words (or on Spark, whose integers are 64-bit) the same output comes
  from the unpacked form: paired rows built in the query and ranked per pair by spearman()'s windows
  (the formulation before issue 31).
  The row order is never relied on: every sum is over an ORDER BY window or a GROUP BY.
-#}

{% macro wag_corrected_rank_layout(series, level) -%}
  {#- The bit-field layout for `level` ('individual' or 'pooled') over the relation `series`
      (int_metric_series): a dict method ('packed' or 'paired'), bits, fields (per word), words.
      Measured on the whole table (an upper bound for any subset: changed subjects, days <= t).
      var corrected_ranks ('auto', 'packed', 'paired') other than 'auto' forces a method; var
      corrected_rank_limits ({longest: rows, metrics: n}) replaces the measurement (unit tests). -#}
  {%- set forced = var('corrected_ranks', 'auto') -%}
  {%- if forced not in ('auto', 'packed', 'paired') -%}
    {{ exceptions.raise_compiler_error("var corrected_ranks must be 'auto', 'packed' or 'paired', got '" ~ forced ~ "'") }}
  {%- endif -%}
  {%- if target.type == 'spark' or forced == 'paired' -%}
    {{ return({'method': 'paired', 'bits': 0, 'fields': 0, 'words': 0}) }}
  {%- endif -%}
  {%- set longest, n_metrics = 1, 1 -%}
  {%- set given = var('corrected_rank_limits', none) -%}
  {%- if given is not none -%}
    {#- unit tests (their inputs are not tables to measure): {longest: rows, metrics: per dataset} -#}
    {%- set longest, n_metrics = given['longest'] | int, given['metrics'] | int -%}
  {%- elif execute -%}
    {%- set part = 'subject_key' if level == 'individual' else 'dataset' -%}
    {#- the longest series of the level, and the most edge metrics of a dataset (midx is numbered per
        dataset: it bounds the words and the row key's multiplier) -#}
    {%- set row = run_query(
        "select (select coalesce(max(n), 0) from (select count(*) as n from " ~ series
        ~ " group by dataset, " ~ part ~ ", metric_id)),"
        ~ " (select coalesce(max(n), 0) from (select count(distinct metric_id) as n from " ~ series
        ~ " group by dataset))").rows[0] -%}
    {%- set longest, n_metrics = [row[0] | int, 1] | max, [row[1] | int, 1] | max -%}
  {%- endif -%}
  {#- bit length of 2 * longest (Jinja has no log2): the smallest b with 2^b > 2 * longest -#}
  {%- set ns = namespace(bits=1) -%}
  {%- for b in range(1, 64) if ns.bits == 1 -%}
    {%- if 2 ** b > 2 * longest -%}{%- set ns.bits = b -%}{%- endif -%}
  {%- endfor -%}
  {%- set fields = (127 // ns.bits) | int -%}
  {%- set words = ((n_metrics + fields - 1) // fields) | int -%}
  {%- set method = 'packed' if forced == 'packed' or words <= var('corrected_rank_max_words', 8) | int else 'paired' -%}
  {{ return({'method': method, 'bits': ns.bits, 'fields': fields, 'words': words, 'metrics': n_metrics}) }}
{%- endmacro %}


{% macro wag_edge_rank_sums(series, level, where='true', layout=none) -%}
{#-
  A SELECT of the Pearson sums of corrected doubled ranks per (dataset, subject_key, edge_key) over
  the subject's common days of the edge's two metrics:
      n, s_a, s_b, s_aa, s_bb, s_ab (exact integers), last_day (the last common day)
  level 'individual': ranks over the subject's days (a subject's rows are its correlation);
  level 'pooled':     ranks over the dataset's subject-days (the rows are partial sums: the pooled
                      correlation sums them over the dataset's subjects, wag_rho_from_sums).
  series: int_metric_series (dataset, subject_key, metric_id, day, value); where: a predicate on its
  rows (changed subjects, days <= a snapshot day); layout: wag_corrected_rank_layout(series, level).
  Only DuckDB (method 'packed'); wag_edge_spearman dispatches.
-#}
{%- set L = layout if layout is not none else wag_corrected_rank_layout(series, level) -%}
{%- set bits, fields, words = L['bits'], L['fields'], L['words'] -%}
{#- after the running sums, each HUGEINT word is split into BIGINT words of `f64` fields (native
    64-bit shifts in the join): BIGINT word g = w * subs + k holds fields k * f64 .. of word w -#}
{%- set f64 = (63 // bits) | int -%}
{%- set subs = ((fields + f64 - 1) // f64) | int -%}
{%- set sub_mask = 2 ** (bits * f64) - 1 -%}
{%- set full = namespace(v=0) -%}
{%- for pos in range(fields) -%}{%- set full.v = full.v + 2 ** (bits * pos) -%}{%- endfor -%}
{%- set mask = 2 ** bits - 1 -%}
{%- set part = 'subject_key' if level == 'individual' else 'dataset' -%}
with cr_values as {{ wag_not_materialized() }} (
    select dataset, subject_key, metric_id, day, value
    from {{ series }}
    where value is not null and ({{ where }})
),

cr_metrics as (
    -- each dataset's edge metrics, numbered from 0: the metric's bit field is (midx % fields) of
    -- word (midx // fields)
    select dataset, metric_id,
           cast(row_number() over (partition by dataset order by metric_id) - 1 as integer) as midx
    from (select distinct dataset, metric_id from cr_values) as m
),

cr_days as (
    -- per (subject, day): an integer id (the join key of a row is id * metrics + midx) and the
    -- fields of the metrics recorded that day set to 1
    select subject_key, day,
           row_number() over (order by subject_key, day) as day_id{% for w in range(words) %},
           present_{{ w }}{% endfor %}
    from (
        select v.subject_key, v.day{% for w in range(words) %},
               coalesce(sum(cast(1 as hugeint) << ({{ bits }} * (m.midx % {{ fields }})))
                        filter (where m.midx // {{ fields }} = {{ w }}), 0) as present_{{ w }}{% endfor %}
        from cr_values as v
        inner join cr_metrics as m on m.dataset = v.dataset and m.metric_id = v.metric_id
        group by v.subject_key, v.day
    ) as p
),

cr_rows as {{ wag_not_materialized() }} (
    -- each value with its row key and its day's missing metrics (fields of metrics not recorded = 1)
    select v.dataset, v.subject_key, m.midx, d.day, v.value,
           d.day_id * {{ L['metrics'] }} + m.midx as row_key{% for w in range(words) %},
           cast('{{ full.v }}' as hugeint) - d.present_{{ w }} as missing_{{ w }}{% endfor %}
    from cr_values as v
    inner join cr_metrics as m on m.dataset = v.dataset and m.metric_id = v.metric_id
    inner join cr_days as d on d.subject_key = v.subject_key and d.day = v.day
),

cr_value_counts as (
    -- one row per tie group of a series ({{ part }}, metric, value) with its count and the summed
    -- missing fields: one sort of these groups ranks every series (no peer frames)
    select {{ part }}, midx, value, count(*) as c{% for w in range(words) %},
           sum(missing_{{ w }}) as m_{{ w }}{% endfor %}
    from cr_rows
    group by {{ part }}, midx, value
),

cr_value_ranks as (
    -- a tie group of c values ending at position b: doubled average rank 2b - c + 1; doubled
    -- corrections 2 x (running sum of the missing fields) - the group's own sum
    select {{ part }}, midx, value,
           2 * sum(c) over w - c + 1 as r2{% for w in range(words) %},
           2 * sum(m_{{ w }}) over w - m_{{ w }} as c2_{{ w }}{% endfor %}
    from cr_value_counts
    window w as (partition by {{ part }}, midx order by value rows between unbounded preceding and current row)
),

cr_ranked as materialized (
    select r.dataset, r.subject_key, r.midx, r.day, r.row_key, k.r2{% for w in range(words) %}{% for k in range(subs) %},
           cast((k.c2_{{ w }} >> {{ bits * f64 * k }}) & {{ sub_mask }} as bigint) as b_{{ w * subs + k }}{% endfor %}{% endfor %}
    from cr_rows as r
    inner join cr_value_ranks as k on k.{{ part }} = r.{{ part }} and k.midx = r.midx and k.value = r.value
),

cr_edges as (
    -- each edge with both metrics in a dataset (pair_id: one per (dataset, edge)): where each end's
    -- correction field for the other is
    select cast(row_number() over (order by a.dataset, e.edge_key) as integer) as pair_id,
           e.edge_key, a.dataset, a.midx as midx_a, b.midx as midx_b,
           (b.midx // {{ fields }}) * {{ subs }} + (b.midx % {{ fields }}) // {{ f64 }} as word_a,
           {{ bits }} * ((b.midx % {{ fields }}) % {{ f64 }}) as shift_a,
           (a.midx // {{ fields }}) * {{ subs }} + (a.midx % {{ fields }}) // {{ f64 }} as word_b,
           {{ bits }} * ((a.midx % {{ fields }}) % {{ f64 }}) as shift_b
    from {{ ref('int_edge_keys') }} as e
    inner join cr_metrics as a on a.metric_id = e.node_a
    inner join cr_metrics as b on b.metric_id = e.node_b and b.dataset = a.dataset
),

cr_side_a as (
    -- the node_a end of every edge, its corrected doubled rank computed before the join (a narrow
    -- stream: the partner's row key, the pair, the rank)
    select a.subject_key, e.pair_id, a.day, a.row_key - a.midx + e.midx_b as partner_key,
           e.word_b, e.shift_b,
           a.r2 - (((case e.word_a{% for g in range(words * subs) %} when {{ g }} then a.b_{{ g }}{% endfor %} end)
                    >> e.shift_a) & {{ mask }}) as ra
    from cr_ranked as a
    inner join cr_edges as e on e.dataset = a.dataset and e.midx_a = a.midx
),

cr_pairs as (
    -- the common days of every edge: corrected doubled ranks, never stored
    select a.subject_key, a.pair_id, a.day, a.ra,
           b.r2 - (((case a.word_b{% for g in range(words * subs) %} when {{ g }} then b.b_{{ g }}{% endfor %} end)
                    >> a.shift_b) & {{ mask }}) as rb
    from cr_side_a as a
    inner join cr_ranked as b on b.row_key = a.partner_key
),

cr_sums as (
    select subject_key, pair_id,
           count(*)     as n,
           sum(ra)      as s_a,
           sum(rb)      as s_b,
           sum(ra * ra) as s_aa,
           sum(rb * rb) as s_bb,
           sum(ra * rb) as s_ab,
           max(day)     as last_day
    from cr_pairs
    group by subject_key, pair_id
)

select e.dataset, s.subject_key, e.edge_key, s.n, s.s_a, s.s_b, s.s_aa, s.s_bb, s.s_ab, s.last_day
from cr_sums as s
inner join cr_edges as e on e.pair_id = s.pair_id
{%- endmacro %}


{% macro wag_rho_from_sums(n, s_a, s_b, s_aa, s_bb, s_ab) -%}
  {#- Pearson correlation of the ranks from exact integer sums, clamped to [-1, 1] and rounded to 12
      decimals as spearman(); NULL when a variance is 0 (see wag_variance_reason). -#}
  case when {{ n }} * {{ s_aa }} - {{ s_a }} * {{ s_a }} > 0 and {{ n }} * {{ s_bb }} - {{ s_b }} * {{ s_b }} > 0 then
      round(greatest(-1.0, least(1.0,
          cast({{ n }} * {{ s_ab }} - {{ s_a }} * {{ s_b }} as double)
          / sqrt(cast({{ n }} * {{ s_aa }} - {{ s_a }} * {{ s_a }} as double))
          / sqrt(cast({{ n }} * {{ s_bb }} - {{ s_b }} * {{ s_b }} as double)))), 12)
  end
{%- endmacro %}


{% macro wag_variance_reason(n, s_a, s_b, s_aa, s_bb) -%}
  {#- 'zero_variance_x' / 'zero_variance_y' when a ranked series is constant on the common days
      (n Σaa = (Σa)^2 exactly), else NULL. -#}
  case
      when not {{ n }} * {{ s_aa }} - {{ s_a }} * {{ s_a }} > 0 then 'zero_variance_x'
      when not {{ n }} * {{ s_bb }} - {{ s_b }} * {{ s_b }} > 0 then 'zero_variance_y'
  end
{%- endmacro %}


{% macro wag_edge_spearman(series, level, where='true', layout=none) -%}
{#-
  A SELECT of the Spearman correlation of every prior edge (DESIGN.md §5) over the rows of `series`
  (int_metric_series) that satisfy `where`:
    level 'individual': dataset, subject_key, edge_key, n, spearman_rho, null_reason with the validity
                        rule of var('min_samples') (spearman()'s columns and reasons);
    level 'pooled':     dataset, edge_key, n, n_subjects, rho_unchecked, variance_reason, last_day
                        (no thresholds: the caller applies them; last_day = the last common day).
  Method (wag_corrected_rank_layout): 'packed' = series ranked once with bit-field corrections
  (wag_edge_rank_sums); 'paired' = the pairs built in the query and ranked per pair by spearman()
  (Spark, too many bit-field words, or var corrected_ranks = 'paired'). Same values either way.
-#}
{%- set L = layout if layout is not none else wag_corrected_rank_layout(series, level) -%}
{%- if L['method'] == 'packed' -%}
{%- if level == 'individual' %}
select dataset, subject_key, edge_key, n,
       case when n >= {{ var('min_samples') }} then {{ wag_rho_from_sums('n', 's_a', 's_b', 's_aa', 's_bb', 's_ab') }} end
           as spearman_rho,
       case when n < {{ var('min_samples') }} then 'n_below_min'
            else {{ wag_variance_reason('n', 's_a', 's_b', 's_aa', 's_bb') }} end as null_reason
from (
{%- if var('individual_form', 'wide') == 'wide' and '__dbt__cte__' not in (series | string) %}
{%- set K = wag_wide_batches(series, where) %}
{%- if K > 1 %}
select * from {{ wag_wide_batch_table(series, where, 'individual', L['bits'], K) }}
{%- else %}
{{ wag_wide_sums(series, where, 'individual', L['bits']) }}
{%- endif %}
{%- else %}
{{ wag_edge_rank_sums(series, 'individual', where, L) }}
{%- endif %}
) as cr_sums
{%- else %}
select dataset, edge_key, n, n_subjects,
       {{ wag_rho_from_sums('n', 's_a', 's_b', 's_aa', 's_bb', 's_ab') }} as rho_unchecked,
       {{ wag_variance_reason('n', 's_a', 's_b', 's_aa', 's_bb') }} as variance_reason,
       last_day
from (
    -- the pooled sums are the sums of the subjects' partial sums; a subject contributes pairs iff it
    -- has a row here
{%- if var('pooled_form', 'wide') == 'wide' and '__dbt__cte__' not in (series | string) %}
    -- (not in dbt unit tests, whose input is a CTE the run-time metric list cannot query)
    -- one row per (subject, day) with every metric's rank and corrections (macros/wide_sums.sql)
{%- set K = wag_wide_batches(series, where) %}
{%- if K > 1 %}
    -- in K subject batches (wag_wide_batch_table): the totals of the batches' sums
    select dataset, edge_key, sum(n) as n, sum(n_subjects) as n_subjects,
           sum(n) * (sum(n) + 1) as s_a, sum(n) * (sum(n) + 1) as s_b,
           sum(s_aa) as s_aa, sum(s_bb) as s_bb, sum(s_ab) as s_ab, max(last_day) as last_day
    from {{ wag_wide_batch_table(series, where, 'pooled', L['bits'], K) }}
    group by dataset, edge_key
{%- else %}
{{ wag_wide_sums(series, where, 'pooled', L['bits']) }}
{%- endif %}
{%- else %}
    select dataset, edge_key, sum(n) as n, count(*) as n_subjects, sum(s_a) as s_a, sum(s_b) as s_b,
           sum(s_aa) as s_aa, sum(s_bb) as s_bb, sum(s_ab) as s_ab, max(last_day) as last_day
    from (
{{ wag_edge_rank_sums(series, 'pooled', where, L) }}
    ) as cr_sums
    group by dataset, edge_key
{%- endif %}
) as cr_pooled
{%- endif -%}
{%- else -%}
{%- set one_side -%}
(select dataset, subject_key, metric_id, day, value from {{ series }} where value is not null and ({{ where }}))
{%- endset -%}
{%- set paired -%}
(select a.dataset, a.subject_key, e.edge_key, a.day, a.value as value_a, b.value as value_b
     from {{ ref('int_edge_keys') }} as e
     inner join {{ one_side }} as a on a.metric_id = e.node_a
     inner join {{ one_side }} as b
         on b.metric_id = e.node_b and b.subject_key = a.subject_key and b.day = a.day) as cr_paired
{%- endset -%}
{%- if level == 'individual' %}
select dataset, subject_key, edge_key, n, spearman_rho, null_reason
from (
{{ spearman(paired, ['dataset', 'subject_key', 'edge_key'], 'value_a', 'value_b', var('min_samples')) }}
) as cr_rho
{%- else %}
select r.dataset, r.edge_key, r.n, r.n_subjects, r.spearman_rho as rho_unchecked,
       r.null_reason as variance_reason, d.last_day
from (
{{ spearman(paired, ['dataset', 'edge_key'], 'value_a', 'value_b', 0, subject_col='subject_key', min_subjects=0,
            ranks=wag_pooled_rank_method(series, where)) }}
) as r
inner join (select dataset, edge_key, max(day) as last_day from {{ paired }} group by dataset, edge_key) as d
    on d.dataset = r.dataset and d.edge_key = r.edge_key
{%- endif -%}
{%- endif -%}
{%- endmacro %}
