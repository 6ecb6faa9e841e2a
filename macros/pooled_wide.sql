{#-
  Pooled Spearman sums of every prior edge from one row per (subject, day) (issue 31, DuckDB only).

  The same identity as wag_edge_rank_sums (macros/corrected_ranks.sql): each (dataset, metric)
  series is ranked once over the dataset's subject-days, and on a common day of x and y the pair's
  doubled average rank is 2 x rank_Dx - (2 x #{partner-missing days below} + #{... tied}), the
  corrections being the bit fields of one running sum per word over the series' tie groups. What
  differs is how the two ends meet: not a hash join of 35 M (edge, day) rows, but one row per
  (subject, day) with every metric's doubled rank and correction words as columns (one small join
  per metric on (subject, day)), and each edge's Pearson sums as column expressions of that row,
  summed per subject. The tie groups of a pooled series are few (wearable values tie: 43 k groups
  for 4.1 M values at 500 subjects), so ranking costs little; the per-row work is the edges'
  arithmetic.

  Per dataset, its metrics (midx = 0.. in metric_id order) and edges are read at run time
  (run_query): the SQL is one block per dataset, UNION ALL. Row order is never relied on: the ranks
  come from an ORDER BY window over tie groups, every sum from a GROUP BY.
  Sums of doubled ranks over the n common days are n (n + 1) exactly (average ranks sum to
  n (n + 1) / 2 whatever the ties), so only count, Σa², Σb², Σab are accumulated.
-#}

{% macro wag_pooled_wide_sums(series, where, bits) -%}
{#-
  A SELECT of (dataset, edge_key, n, n_subjects, s_a, s_b, s_aa, s_bb, s_ab, last_day) for the rows
  of `series` (int_metric_series) satisfying `where`: the pooled Pearson sums of the corrected
  doubled ranks of every edge with both metrics in a dataset, n_subjects = subjects with a common
  day, last_day = the dataset's last day on which some edge has both values (the same for every
  edge of the dataset). bits: width of a correction field (wag_corrected_rank_layout 'pooled').
-#}
{%- set F = (127 // bits) | int -%}
{%- set F64 = (63 // bits) | int -%}
{%- set mask = 2 ** bits - 1 -%}
{%- set blocks = [] -%}
{%- if execute -%}
  {%- set found = run_query(
      "select dataset, metric_id from (select distinct dataset, metric_id from " ~ series
      ~ " where value is not null and (" ~ where ~ ")) order by dataset, metric_id") -%}
  {%- set per = {} -%}
  {%- for r in found.rows -%}
    {%- if r[0] not in per -%}{%- do per.update({r[0]: []}) -%}{%- endif -%}
    {%- do per[r[0]].append(r[1]) -%}
  {%- endfor -%}
  {%- set edge_rows = run_query("select edge_key, node_a, node_b from " ~ ref('int_edge_keys') ~ " order by edge_key").rows -%}
  {%- for ds in per -%}
    {%- set metrics = per[ds] -%}
    {%- set idx = {} -%}
    {%- for m in metrics -%}{%- do idx.update({m: loop.index0}) -%}{%- endfor -%}
    {%- set edges = [] -%}
    {%- for e in edge_rows if e[1] in idx and e[2] in idx -%}
      {%- do edges.append([e[0] | int, idx[e[1]], idx[e[2]]]) -%}
    {%- endfor -%}
    {%- if edges | length > 0 -%}
      {%- do blocks.append({'dataset': ds, 'metrics': metrics, 'edges': edges}) -%}
    {%- endif -%}
  {%- endfor -%}
{%- endif -%}
{%- if blocks | length == 0 %}
select cast(null as varchar) as dataset, cast(null as integer) as edge_key, cast(0 as hugeint) as n,
       cast(0 as bigint) as n_subjects, cast(0 as hugeint) as s_a, cast(0 as hugeint) as s_b,
       cast(0 as hugeint) as s_aa, cast(0 as hugeint) as s_bb, cast(0 as hugeint) as s_ab,
       cast(null as date) as last_day
where false
{%- endif -%}
{%- for blk in blocks %}
{% if not loop.first %}union all{% endif %}
select * from (
{%- set M = blk['metrics'] | length -%}
{%- set W = ((M + F - 1) // F) | int -%}
{%- set W64 = ((M + F64 - 1) // F64) | int -%}
    with pw_rows as (
        select v.subject_key, v.day, m.midx, v.value
        from {{ series }} as v
        inner join (values {% for m in blk['metrics'] %}({{ wag_sql_string(m) }}, {{ loop.index0 }}){% if not loop.last %}, {% endif %}{% endfor %}) as m(metric_id, midx)
            on m.metric_id = v.metric_id
        where v.dataset = {{ wag_sql_string(blk['dataset']) }} and v.value is not null and ({{ where }})
    ),

    pw_days as (
        -- per (subject, day): the fields of the metrics recorded that day set to 1 (HUGEINT words)
        select subject_key, day{% for w in range(W) %},
               coalesce(sum(cast(1 as hugeint) << ({{ bits }} * (midx % {{ F }}))) filter (where midx // {{ F }} = {{ w }}), 0) as p{{ w }}{% endfor %}
        from pw_rows
        group by subject_key, day
    ),

    pw_groups as (
        -- tie groups of each pooled series: count and summed missing fields
        select r.midx, r.value, count(*) as c{% for w in range(W) %},
{%- set full = namespace(v=0) -%}
{%- for pos in range([F, M - w * F] | min) -%}{%- set full.v = full.v + 2 ** (bits * pos) -%}{%- endfor %}
               sum(cast('{{ full.v }}' as hugeint) - d.p{{ w }}) as m{{ w }}{% endfor %}
        from pw_rows as r
        inner join pw_days as d on d.subject_key = r.subject_key and d.day = r.day
        group by r.midx, r.value
    ),

    pw_ranks as (
        -- doubled average rank 2b - c + 1 and doubled corrections 2 x running fields - own fields,
        -- re-packed into BIGINT words of {{ F64 }} fields
        select midx, value, r2{% for g in range(W64) %},
               cast({% for j in range(g * F64, [M, (g + 1) * F64] | min) %}{% if not loop.first %} + {% endif %}(((c{{ j // F }} >> {{ bits * (j % F) }}) & {{ mask }}) << {{ bits * (j % F64) }}){% endfor %} as bigint) as w{{ g }}{% endfor %}
        from (
            select midx, value, cast(2 * sum(c) over w - c + 1 as bigint) as r2{% for w in range(W) %},
                   2 * sum(m{{ w }}) over w - m{{ w }} as c{{ w }}{% endfor %}
            from pw_groups
            window w as (partition by midx order by value rows between unbounded preceding and current row)
        ) as running
    ),

    pw_ranked as (
        select r.subject_key, r.day, r.midx, k.r2{% for g in range(W64) %}, k.w{{ g }}{% endfor %}
        from pw_rows as r
        inner join pw_ranks as k on k.midx = r.midx and k.value = r.value
    ),

    pw_wide as (
        -- one row per (subject, day): every metric's doubled rank (NULL when not recorded) and words
        select d.subject_key, d.day{% for i in range(M) %}, t{{ i }}.r2_{{ i }}{% for g in range(W64) %}, t{{ i }}.c{{ i }}_{{ g }}{% endfor %}{% endfor %}
        from pw_days as d
{%- for i in range(M) %}
        left join (select subject_key, day, r2 as r2_{{ i }}{% for g in range(W64) %}, w{{ g }} as c{{ i }}_{{ g }}{% endfor %}
                   from pw_ranked where midx = {{ i }}) as t{{ i }}
            on t{{ i }}.subject_key = d.subject_key and t{{ i }}.day = d.day
{%- endfor %}
    ),

    pw_edges as (
        -- each edge's corrected doubled ranks on the row, NULL unless both metrics are recorded
        select subject_key, day{% for e in blk['edges'] %},
               r2_{{ e[1] }} - ((c{{ e[1] }}_{{ e[2] // F64 }} >> {{ bits * (e[2] % F64) }}) & {{ mask }}) + 0 * r2_{{ e[2] }} as a{{ loop.index0 }},
               r2_{{ e[2] }} - ((c{{ e[2] }}_{{ e[1] // F64 }} >> {{ bits * (e[1] % F64) }}) & {{ mask }}) + 0 * r2_{{ e[1] }} as b{{ loop.index0 }}{% endfor %}
        from pw_wide
    ),

    pw_subject_sums as (
        select subject_key{% for e in blk['edges'] %},
               count(a{{ loop.index0 }}) as n{{ loop.index0 }}, sum(a{{ loop.index0 }} * a{{ loop.index0 }}) as saa{{ loop.index0 }},
               sum(b{{ loop.index0 }} * b{{ loop.index0 }}) as sbb{{ loop.index0 }}, sum(a{{ loop.index0 }} * b{{ loop.index0 }}) as sab{{ loop.index0 }}{% endfor %},
               max(day) filter (where {% for e in blk['edges'] %}{% if not loop.first %} or {% endif %}a{{ loop.index0 }} is not null{% endfor %}) as last_day
        from pw_edges
        group by subject_key
    ),

    pw_long as (
        select subject_key, last_day, unnest([{% for e in blk['edges'] %}{'edge_key': {{ e[0] }}, 'n': n{{ loop.index0 }}, 'saa': saa{{ loop.index0 }}, 'sbb': sbb{{ loop.index0 }}, 'sab': sab{{ loop.index0 }}}{% if not loop.last %}, {% endif %}{% endfor %}], recursive := true)
        from pw_subject_sums
    )

    select {{ wag_sql_string(blk['dataset']) }} as dataset, cast(edge_key as integer) as edge_key,
           cast(sum(n) as hugeint) as n, count(*) as n_subjects,
           cast(sum(n) * (sum(n) + 1) as hugeint) as s_a, cast(sum(n) * (sum(n) + 1) as hugeint) as s_b,
           cast(sum(saa) as hugeint) as s_aa, cast(sum(sbb) as hugeint) as s_bb, cast(sum(sab) as hugeint) as s_ab,
           (select max(last_day) from pw_subject_sums) as last_day
    from pw_long
    where n > 0
    group by edge_key
) as pw_block_{{ loop.index0 }}
{%- endfor %}
{%- endmacro %}
