{#-
  Spearman sums of every prior edge from one row per (subject, day) (issue 31, DuckDB only).

  The same identity as wag_edge_rank_sums (macros/corrected_ranks.sql): each series is ranked once
  (level 'individual': a (subject, metric) series over the subject's days; 'pooled': a (dataset,
  metric) series over the dataset's subject-days), and on a common day of x and y the pair's doubled
  average rank is 2 x rank_Dx - (2 x #{partner-missing days below} + #{... tied}), the corrections
  being the bit fields of one running sum per word over the series' tie groups. A row's corrected
  rank for partner y depends only on its tie group (the row itself is a common day), so the
  corrected ranks for every partner are unpacked once per tie group (few: 42 k pooled groups, 1.6 M
  individual groups for 4.1 M values at 500 subjects), not per row.
  How the two ends meet: not a hash join of 35 M (edge, day) rows, but one row per (subject, day)
  with every metric's value as a column (one small join per metric), each metric's corrected ranks
  for its partners looked up by (value) or (subject, value) (one small join per metric), and each
  edge's Pearson sums as column expressions of that row, summed per subject.

  Per dataset, its metrics (midx = 0.. in metric_id order) and edges are read at run time
  (run_query): the SQL is one block per dataset, UNION ALL. Row order is never relied on: the ranks
  come from an ORDER BY window over tie groups, every sum from a GROUP BY.
  The per-subject partial sums are DOUBLE when that is exact (every partial sum an integer below
  2^53: the longest subject series x the largest squared doubled rank), which DuckDB adds faster
  than HUGEINT; else BIGINT products with HUGEINT sums. Sums of doubled ranks over the n common days
  are n (n + 1) exactly (average ranks sum to n (n + 1) / 2 whatever the ties), so only count, Σa²,
  Σb², Σab are accumulated.
-#}

{% macro wag_wide_sums(series, where, level, bits, batch=none, ranks_tables=none, ranks_only=false) -%}
{#-
  A SELECT over the rows of `series` (int_metric_series) satisfying `where`, for every edge with
  both metrics in a dataset:
    level 'individual': (dataset, subject_key, edge_key, n, s_a, s_b, s_aa, s_bb, s_ab) per subject
                        with a common day;
    level 'pooled':     (dataset, edge_key, n, n_subjects, s_a, s_b, s_aa, s_bb, s_ab, last_day):
                        n_subjects = subjects with a common day, last_day = the dataset's last day
                        on which some edge has both values (the same for every edge of the dataset).
  bits: width of a correction field (wag_corrected_rank_layout of the level).
  batch: none, or [b, K]: only the subjects with subject_key % K = b contribute rows (individual: every
  CTE; pooled: the (subject, day) rows summed, while the ranks stay those of the whole sample), so K
  statements, one per b, hold 1/K of the per-metric join build sides each (wag_wide_batch_table).
  ranks_tables (pooled): {block index: table} holding each dataset block's pw_ranks, computed once
  for all batches (then the batch's rows alone are read); ranks_only: the SELECT of pw_ranks of the
  block ranks_only - 1 (1-based), to fill such a table.
-#}
{%- set F = (127 // bits) | int -%}
{%- set mask = 2 ** bits - 1 -%}
{%- set indiv = level == 'individual' -%}
{%- set in_batch = ('.subject_key % ' ~ batch[1] ~ ' = ' ~ batch[0]) if batch else none -%}
{%- set info = wag_wide_blocks(series, where, bits) -%}
{%- set blocks = info['blocks'] -%}
{%- set num = namespace(t=info['num']) -%}
{%- if blocks | length == 0 %}
select cast(null as varchar) as dataset,{% if indiv %} cast(null as ubigint) as subject_key,{% endif %} cast(null as integer) as edge_key,
       cast(0 as hugeint) as n,{% if not indiv %} cast(0 as bigint) as n_subjects,{% endif %} cast(0 as hugeint) as s_a, cast(0 as hugeint) as s_b,
       cast(0 as hugeint) as s_aa, cast(0 as hugeint) as s_bb, cast(0 as hugeint) as s_ab{% if not indiv %},
       cast(null as date) as last_day{% endif %}
where false
{%- endif -%}
{%- for blk in blocks %}
{%- if not ranks_only or loop.index == ranks_only %}
{% if not loop.first and not ranks_only %}union all{% endif %}
{%- set bi = loop.index0 %}
select * from (
{%- set M = blk['metrics'] | length -%}
{%- set W = ((M + F - 1) // F) | int -%}
{%- set P = blk['partners'] -%}
    with pw_rows as (
        select v.subject_key, v.day, m.midx, v.value
        from {{ series }} as v
        inner join (values {% for m in blk['metrics'] %}({{ wag_sql_string(m) }}, {{ loop.index0 }}){% if not loop.last %}, {% endif %}{% endfor %}) as m(metric_id, midx)
            on m.metric_id = v.metric_id
        where v.dataset = {{ wag_sql_string(blk['dataset']) }} and v.value is not null and ({{ where }})
          {%- if in_batch and (indiv or ranks_tables) %} and v{{ in_batch }}{% endif %}
    ),

    pw_days as (
        -- per (subject, day): the fields of the metrics recorded that day set to 1 (HUGEINT words)
        select subject_key, day{% for w in range(W) %},
               coalesce(sum(cast(1 as hugeint) << ({{ bits }} * (midx % {{ F }}))) filter (where midx // {{ F }} = {{ w }}), 0) as p{{ w }}{% endfor %}
        from pw_rows
        group by subject_key, day
    ),

{%- if ranks_tables %}

    pw_ranks as (
        select * from {{ ranks_tables[bi] }}
    ),
{%- else %}

    pw_groups as (
        -- tie groups of each series: count and summed missing fields
        select {% if indiv %}r.subject_key, {% endif %}r.midx, r.value, count(*) as c{% for w in range(W) %},
{%- set full = namespace(v=0) -%}
{%- for pos in range([F, M - w * F] | min) -%}{%- set full.v = full.v + 2 ** (bits * pos) -%}{%- endfor %}
               sum(cast('{{ full.v }}' as hugeint) - d.p{{ w }}) as m{{ w }}{% endfor %}
        from pw_rows as r
        inner join pw_days as d on d.subject_key = r.subject_key and d.day = r.day
        group by {% if indiv %}r.subject_key, {% endif %}r.midx, r.value
    ),

    pw_ranks as (
        -- doubled average rank 2b - c + 1 and doubled corrections 2 x running fields - own fields;
        -- x_j = the corrected doubled rank of the group's rows on the common days with metric j
        select {% if indiv %}subject_key, {% endif %}midx, value{% for j in range(M) %},
               cast(r2 - ((c{{ j // F }} >> {{ bits * (j % F) }}) & {{ mask }}) as {{ num.t }}) as x{{ j }}{% endfor %}
        from (
            select {% if indiv %}subject_key, {% endif %}midx, value, 2 * sum(c) over w - c + 1 as r2{% for w in range(W) %},
                   2 * sum(m{{ w }}) over w - m{{ w }} as c{{ w }}{% endfor %}
            from pw_groups
            window w as (partition by {% if indiv %}subject_key, {% endif %}midx order by value rows between unbounded preceding and current row)
        ) as running
    ),
{%- endif %}
{%- if ranks_only %}

    -- (the comma above closes pw_ranks; this CTE only ends the list)
    pw_ranks_done as (select 1)
    select * from pw_ranks
) as pw_ranks_block
{%- else %}

    pw_wide as (
        -- one row per (subject, day): each metric's corrected ranks for its partners (NULL when
        -- the metric is not recorded that day)
        select d.subject_key, d.day{% for i in P %}{% for j in P[i] %}, t{{ i }}.x{{ i }}_{{ j }}{% endfor %}{% endfor %}
        from pw_days as d
{%- for i in P %}
        left join (
            select r.subject_key, r.day{% for j in P[i] %}, k.x{{ j }} as x{{ i }}_{{ j }}{% endfor %}
            from pw_rows as r
            inner join pw_ranks as k
                on k.midx = {{ i }} and {% if indiv %}k.subject_key = r.subject_key and {% endif %}k.value = r.value
            where r.midx = {{ i }}{% if in_batch and not indiv %} and r{{ in_batch }}{% endif %}
        ) as t{{ i }}
            on t{{ i }}.subject_key = d.subject_key and t{{ i }}.day = d.day
{%- endfor %}
{%- if in_batch and not indiv %}
        where d{{ in_batch }}
{%- endif %}
    ),

    pw_subject_sums as (
        -- per subject and edge: common days (both ranks present), Σa², Σb², Σab
        select subject_key{% for e in blk['edges'] %}{% set a = 'x' ~ e[1] ~ '_' ~ e[2] %}{% set b = 'x' ~ e[2] ~ '_' ~ e[1] %},
               count({{ a }} * {{ b }}) as n{{ loop.index0 }},
               sum({{ a }} * {{ a }} + 0 * {{ b }}) as saa{{ loop.index0 }},
               sum({{ b }} * {{ b }} + 0 * {{ a }}) as sbb{{ loop.index0 }},
               sum({{ a }} * {{ b }}) as sab{{ loop.index0 }}{% endfor %}{% if not indiv %},
               max(day) filter (where {% for e in blk['edges'] %}{% if not loop.first %} or {% endif %}(x{{ e[1] }}_{{ e[2] }} is not null and x{{ e[2] }}_{{ e[1] }} is not null){% endfor %}) as last_day{% endif %}
        from pw_wide
        group by subject_key
    ),

    pw_long as (
        select subject_key,{% if not indiv %} last_day,{% endif %} unnest([{% for e in blk['edges'] %}{'edge_key': {{ e[0] }}, 'n': n{{ loop.index0 }}, 'saa': cast(saa{{ loop.index0 }} as hugeint), 'sbb': cast(sbb{{ loop.index0 }} as hugeint), 'sab': cast(sab{{ loop.index0 }} as hugeint)}{% if not loop.last %}, {% endif %}{% endfor %}], recursive := true)
        from pw_subject_sums
    )
{%- if indiv %}

    select {{ wag_sql_string(blk['dataset']) }} as dataset, subject_key, cast(edge_key as integer) as edge_key,
           cast(n as hugeint) as n, cast(n * (n + 1) as hugeint) as s_a, cast(n * (n + 1) as hugeint) as s_b,
           saa as s_aa, sbb as s_bb, sab as s_ab
    from pw_long
    where n > 0
{%- else %}

    select {{ wag_sql_string(blk['dataset']) }} as dataset, cast(edge_key as integer) as edge_key,
           cast(sum(n) as hugeint) as n, count(*) as n_subjects,
           cast(sum(n) * (sum(n) + 1) as hugeint) as s_a, cast(sum(n) * (sum(n) + 1) as hugeint) as s_b,
           sum(saa) as s_aa, sum(sbb) as s_bb, sum(sab) as s_ab,
           (select max(last_day) from pw_subject_sums) as last_day
    from pw_long
    where n > 0
    group by edge_key
{%- endif %}
) as pw_block_{{ loop.index0 }}
{%- endif %}
{%- endif %}
{%- endfor %}
{%- endmacro %}


{% macro wag_wide_blocks(series, where, bits) -%}
{#- Run-time facts for wag_wide_sums over the rows of `series` satisfying `where`: {'blocks': one dict
    per dataset with an edge (dataset, metrics in metric_id order, edges [edge_key, midx_a, midx_b],
    partners {midx: [midx, ...]}), 'num': 'double' when per-subject sums of products of doubled ranks
    below 2^bits are exact in DOUBLE, else 'bigint'}. Empty before execution. -#}
{%- set blocks = [] -%}
{%- set num = namespace(t='bigint') -%}
{%- if execute -%}
  {%- set found = run_query(
      "select dataset, metric_id from (select distinct dataset, metric_id from " ~ series
      ~ " where value is not null and (" ~ where ~ ")) order by dataset, metric_id") -%}
  {%- set per = {} -%}
  {%- for r in found.rows -%}
    {%- if r[0] not in per -%}{%- do per.update({r[0]: []}) -%}{%- endif -%}
    {%- do per[r[0]].append(r[1]) -%}
  {%- endfor -%}
  {%- set lens = run_query(
      "select coalesce(max(n), 0) from (select count(*) as n from " ~ series
      ~ " where value is not null and (" ~ where ~ ") group by subject_key, metric_id)").rows[0] -%}
  {%- set num.t = 'double' if (lens[0] | int) * (2 ** bits) * (2 ** bits) < 2 ** 53 else 'bigint' -%}
  {%- set edge_rows = run_query("select edge_key, node_a, node_b from " ~ ref('int_edge_keys') ~ " order by edge_key").rows -%}
  {%- for ds in per -%}
    {%- set metrics = per[ds] -%}
    {%- set idx = {} -%}
    {%- for m in metrics -%}{%- do idx.update({m: loop.index0}) -%}{%- endfor -%}
    {%- set edges = [] -%}
    {%- set partners = {} -%}
    {%- for e in edge_rows if e[1] in idx and e[2] in idx -%}
      {%- do edges.append([e[0] | int, idx[e[1]], idx[e[2]]]) -%}
      {%- for pair in [[idx[e[1]], idx[e[2]]], [idx[e[2]], idx[e[1]]]] -%}
        {%- if pair[0] not in partners -%}{%- do partners.update({pair[0]: []}) -%}{%- endif -%}
        {%- if pair[1] not in partners[pair[0]] -%}{%- do partners[pair[0]].append(pair[1]) -%}{%- endif -%}
      {%- endfor -%}
    {%- endfor -%}
    {%- if edges | length > 0 -%}
      {%- do blocks.append({'dataset': ds, 'metrics': metrics, 'edges': edges, 'partners': partners}) -%}
    {%- endif -%}
  {%- endfor -%}
{%- endif -%}
{{ return({'blocks': blocks, 'num': num.t}) }}
{%- endmacro %}


{% macro wag_insert_wide_month_snapshots(relation, series, months, bits) -%}
{#-
  The month-end snapshots of correlations_population_snapshots by the wide form, sharing the work
  that does not depend on the cut-off (issue 31): per dataset, once, temp tables of its rows, its
  (subject, day) rows with every metric's value as a column, and its tie groups per month (count and
  missing fields); then per month-end s one INSERT that ranks the tie groups of months <= s (a
  window over a few thousand groups), looks each metric's corrected ranks up by value and sums each
  edge's Pearson sums over the (subject, day) rows <= s. The same values as a pass over the rows
  <= s (wag_wide_sums with where day <= s). months: rows (dataset, snapshot_day as text), ordered.
  Logs each snapshot.
-#}
{%- set F = (127 // bits) | int -%}
{%- set mask = 2 ** bits - 1 -%}
{%- set per = {} -%}
{%- for row in months -%}
  {%- if row[0] not in per -%}{%- do per.update({row[0]: []}) -%}{%- endif -%}
  {%- do per[row[0]].append(row[1]) -%}
{%- endfor -%}
{%- set done = namespace(n=0) -%}
{%- for ds in per -%}
  {%- set last_cut = per[ds] | max -%}
  {%- set where = "dataset = " ~ wag_sql_string(ds) ~ " and day <= cast('" ~ last_cut ~ "' as date)" -%}
  {%- set info = wag_wide_blocks(series, where, bits) -%}
  {%- for blk in info['blocks'] -%}
    {%- set M = blk['metrics'] | length -%}
    {%- set W = ((M + F - 1) // F) | int -%}
    {%- set P = blk['partners'] -%}
    {%- set prep -%}
      create or replace temp table wag_snap_rows as
      select v.subject_key, v.day, last_day(v.day) as month_end, m.midx, v.value
      from {{ series }} as v
      inner join (values {% for m in blk['metrics'] %}({{ wag_sql_string(m) }}, {{ loop.index0 }}){% if not loop.last %}, {% endif %}{% endfor %}) as m(metric_id, midx)
          on m.metric_id = v.metric_id
      where v.value is not null and ({{ where }});
      create or replace temp table wag_snap_days as
      select subject_key, day{% for w in range(W) %},
             coalesce(sum(cast(1 as hugeint) << ({{ bits }} * (midx % {{ F }}))) filter (where midx // {{ F }} = {{ w }}), 0) as p{{ w }}{% endfor %}
      from wag_snap_rows
      group by subject_key, day;
      create or replace temp table wag_snap_groups as
      select r.midx, r.value, r.month_end, count(*) as c{% for w in range(W) %},
{%- set full = namespace(v=0) -%}
{%- for pos in range([F, M - w * F] | min) -%}{%- set full.v = full.v + 2 ** (bits * pos) -%}{%- endfor %}
             sum(cast('{{ full.v }}' as hugeint) - d.p{{ w }}) as m{{ w }}{% endfor %}
      from wag_snap_rows as r
      inner join wag_snap_days as d on d.subject_key = r.subject_key and d.day = r.day
      group by r.midx, r.value, r.month_end;
      create or replace temp table wag_snap_wide as
      select d.subject_key, d.day{% for i in P %}, t{{ i }}.v{{ i }}{% endfor %}
      from wag_snap_days as d
{%- for i in P %}
      left join (select subject_key, day, value as v{{ i }} from wag_snap_rows where midx = {{ i }}) as t{{ i }}
          on t{{ i }}.subject_key = d.subject_key and t{{ i }}.day = d.day
{%- endfor %};
    {%- endset -%}
    {%- do run_query(prep) -%}
    {%- set insert_sql -%}
        insert into {{ relation }}
        with ws_cuts as (
            select cast(snapshot_day as date) as snapshot_day
            from (values {% for cut in per[ds] %}('{{ cut }}'){% if not loop.last %}, {% endif %}{% endfor %}) as c(snapshot_day)
        ),

        ws_ranks as (
            -- per month-end s: the tie groups of the months <= s ranked
            select snapshot_day, midx, value{% for j in range(M) %},
                   cast(r2 - ((c{{ j // F }} >> {{ bits * (j % F) }}) & {{ mask }}) as {{ info['num'] }}) as x{{ j }}{% endfor %}
            from (
                select snapshot_day, midx, value, 2 * sum(c) over w - c + 1 as r2{% for w in range(W) %},
                       2 * sum(m{{ w }}) over w - m{{ w }} as c{{ w }}{% endfor %}
                from (
                    select s.snapshot_day, g.midx, g.value, sum(g.c) as c{% for w in range(W) %}, sum(g.m{{ w }}) as m{{ w }}{% endfor %}
                    from wag_snap_groups as g
                    inner join ws_cuts as s on g.month_end <= s.snapshot_day
                    group by s.snapshot_day, g.midx, g.value
                ) as g
                window w as (partition by snapshot_day, midx order by value rows between unbounded preceding and current row)
            ) as running
        ),

        ws_wide as (
            -- each (subject, day) row once per month-end s >= its day
            select d.snapshot_day, d.subject_key{% for i in P %}{% for j in P[i] %}, k{{ i }}.x{{ j }} as x{{ i }}_{{ j }}{% endfor %}{% endfor %}
            from (select s.snapshot_day, w.* from wag_snap_wide as w inner join ws_cuts as s on w.day <= s.snapshot_day) as d
{%- for i in P %}
            left join (select snapshot_day, value{% for j in P[i] %}, x{{ j }}{% endfor %} from ws_ranks where midx = {{ i }}) as k{{ i }}
                on k{{ i }}.snapshot_day = d.snapshot_day and k{{ i }}.value = d.v{{ i }}
{%- endfor %}
        ),

        ws_subject_sums as (
            select snapshot_day, subject_key{% for e in blk['edges'] %}{% set a = 'x' ~ e[1] ~ '_' ~ e[2] %}{% set b = 'x' ~ e[2] ~ '_' ~ e[1] %},
                   count({{ a }} * {{ b }}) as n{{ loop.index0 }},
                   sum({{ a }} * {{ a }} + 0 * {{ b }}) as saa{{ loop.index0 }},
                   sum({{ b }} * {{ b }} + 0 * {{ a }}) as sbb{{ loop.index0 }},
                   sum({{ a }} * {{ b }}) as sab{{ loop.index0 }}{% endfor %}
            from ws_wide
            group by snapshot_day, subject_key
        ),

        ws_long as (
            select snapshot_day, subject_key, unnest([{% for e in blk['edges'] %}{'edge_key': {{ e[0] }}, 'n': n{{ loop.index0 }}, 'saa': cast(saa{{ loop.index0 }} as hugeint), 'sbb': cast(sbb{{ loop.index0 }} as hugeint), 'sab': cast(sab{{ loop.index0 }} as hugeint)}{% if not loop.last %}, {% endif %}{% endfor %}], recursive := true)
            from ws_subject_sums
        ),

        ws_sums as (
            select snapshot_day, edge_key, cast(sum(n) as hugeint) as n, count(*) as n_subjects,
                   cast(sum(n) * (sum(n) + 1) as hugeint) as s_a, cast(sum(n) * (sum(n) + 1) as hugeint) as s_b,
                   sum(saa) as s_aa, sum(sbb) as s_bb, sum(sab) as s_ab
            from ws_long
            where n > 0
            group by snapshot_day, edge_key
        ),

        snapshot_pooled as (
            select {{ wag_sql_string(ds) }} as dataset, snapshot_day, cast(edge_key as integer) as edge_key, n, n_subjects,
                   {{ wag_rho_from_sums('n', 's_a', 's_b', 's_aa', 's_bb', 's_ab') }} as rho_unchecked,
                   {{ wag_variance_reason('n', 's_a', 's_b', 's_aa', 's_bb') }} as variance_reason
            from ws_sums
        )
        {{ wag_population_snapshot_select('snapshot_pooled', 'r.snapshot_day', 'false') }}
    {%- endset -%}
    {%- do run_query(insert_sql) -%}
    {{ log("correlations_population_snapshots: " ~ ds ~ " " ~ per[ds] | length ~ " month-end snapshots in one statement (wide, shared)", info=true) }}
    {%- do run_query("drop table if exists wag_snap_rows; drop table if exists wag_snap_days; drop table if exists wag_snap_groups; drop table if exists wag_snap_wide") -%}
  {%- endfor -%}
{%- endfor -%}
{%- endmacro %}


{% macro wag_wide_fits(series, where='true') -%}
{#- Whether the wide form's per-metric join build sides fit in one statement: the rows of `series`
    satisfying `where` x the largest possible number of partners (metrics - 1) x 8 bytes at most var
    wide_max_bytes (wag_wide_batches is 1). Used by the month-end snapshots of snapshot mode, which
    share work across cut-offs and are not batched; above the bound they take the join form. -#}
  {{ return(wag_wide_batches(series, where) == 1) }}
{%- endmacro %}


{% macro wag_wide_batches(series, where='true') -%}
{#- How many subject batches the wide form needs (issue 31): its per-metric join build sides are
    resident together (one pipeline probes all of them), about rows x (metrics - 1) x 8 bytes for
    the rows of `series` satisfying `where`; at most var wide_max_bytes (default 1.0e9) per statement.
    0.89e9 at 500 subjects x 365 days x 28 metrics (1 batch), 3.6e9 at 2,000 (4 batches): one
    statement at 2,000 ran out of DuckDB's 3 GB (bench/RESULTS.md). 1 before execution and for dbt
    unit tests (CTE inputs). -#}
  {%- if not execute or '__dbt__cte__' in (series | string) -%}{{ return(1) }}{%- endif -%}
  {%- set row = run_query("select count(*), count(distinct metric_id) from " ~ series
                          ~ " where value is not null and (" ~ where ~ ")").rows[0] -%}
  {%- set need = (row[0] | int) * ([(row[1] | int) - 1, 1] | max) * 8 -%}
  {%- set per = var('wide_max_bytes', 1000000000) | float -%}
  {{ return([((need + per - 1) // per) | int, 1] | max) }}
{%- endmacro %}


{% macro wag_wide_batch_table(series, where, level, bits, batches) -%}
{#- Runs the wide form in `batches` statements (subject_key % batches = b) into a temporary table and
    returns its name: per statement only 1/batches of the join build sides (issue 31; one statement
    at 2,000 subjects ran out of memory, a UNION ALL of the batches in one statement too). Its rows
    are wag_wide_sums' of each batch: individual = the final per-subject sums; pooled = per batch and
    edge n, n_subjects, s_aa, s_bb, s_ab, last_day (s_a, s_b of the batch are not used: they are
    n (n + 1) of the total n). Called while the model renders (execute only): the table exists when
    the model's statement runs on the same connection, and is dropped with it. -#}
  {%- set name = 'wag_wide_batches_' ~ level ~ '_' ~ local_md5(series ~ where)[:10] -%}
  {%- set ranks = {} -%}
  {%- if level == 'pooled' -%}
    {#- the pooled ranks of each dataset block once, not once per batch -#}
    {%- for blk in wag_wide_blocks(series, where, bits)['blocks'] -%}
      {%- do run_query('create or replace temp table ' ~ name ~ '_r' ~ loop.index0 ~ ' as '
                       ~ wag_wide_sums(series, where, level, bits, ranks_only=loop.index)) -%}
      {%- do ranks.update({loop.index0: name ~ '_r' ~ loop.index0}) -%}
    {%- endfor -%}
  {%- endif -%}
  {%- for b in range(batches) -%}
    {%- set stmt -%}
      {{ 'create or replace temp table ' ~ name ~ ' as' if loop.first else 'insert into ' ~ name }}
      {{ wag_wide_sums(series, where, level, bits, [b, batches], ranks_tables=ranks or none) }}
    {%- endset -%}
    {%- do run_query(stmt) -%}
    {{ log(level ~ " correlations (wide form): subject batch " ~ (b + 1) ~ " of " ~ batches, info=true) }}
  {%- endfor -%}
  {{ return(name) }}
{%- endmacro %}
