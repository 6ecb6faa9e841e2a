{% macro spearman(relation, group_by, x, y, min_samples, subject_col=none, min_subjects=none, ranks='window') -%}
{#-
  Spearman's rank correlation per group (DESIGN.md §5), as a SELECT over `relation`.

  relation      a relation, CTE name or subquery with one row per paired observation
  group_by      list of column names identifying a correlation (e.g. ['dataset', 'subject_id', 'node_a', 'node_b'])
  x, y          the two numeric columns; rows where either is NULL are dropped (pairwise-complete)
  min_samples   minimum number of pairs for a valid correlation (SQL expression)
  subject_col   (population correlations) the column naming the subject of a row; with
  min_subjects  a correlation also needs at least min_subjects distinct subjects contributing pairs

  ranks         how the average ranks are computed (same values either way):
                'window'        (rank() + count of values <= v) / 2 from one ordered window per series
                                over the rows: best for many small groups (a subject's days)
                'value_counts'  from the count of each distinct value per group: a running sum over
                                the distinct values (count of values <= v) minus (count of v - 1) / 2,
                                joined back to the rows; for large pooled groups with many tied values
                                (integer steps, minutes, scores) it sorts ~80x fewer rows
                                (correlations_population_snapshots 84.5 -> 58.1 s at 500 subjects,
                                bench/RESULTS.md, issue 10); with all values distinct it is 3.5x
                                slower (46 vs 13 s): wag_pooled_rank_method chooses

  Ties get average ranks (the mean of the tied positions, as scipy.stats.spearmanr):
      rank_avg = (a + b) / 2 for a tie group at positions a..b
  rho = Pearson correlation of the average ranks. Returns one row per group with
      n             number of complete pairs
      n_subjects    distinct subjects contributing pairs (NULL without subject_col)
      spearman_rho  rho clamped to [-1, 1] and rounded to 12 decimals (so the last bits do not depend on
                    summation order or engine); NULL when not valid
      null_reason   why spearman_rho is NULL: 'n_below_min', 'zero_variance_x', 'zero_variance_y',
                    'too_few_subjects' (checked in that order); NULL when valid
  Never NaN, never an error.
-#}
{%- set g = group_by | join(', ') -%}
{%- set enough_subjects = 'true' if subject_col is none else 'count(distinct ' ~ subject_col ~ ') >= ' ~ min_subjects -%}
{#- One 64-bit key per group (wag_group_key): partitioning and grouping by one integer instead of several
    VARCHARs halves the sort cost; the group's columns are joined back at the end. -#}
select
    spearman_names.{{ group_by | join(', spearman_names.') }},
    spearman_agg.n,
    spearman_agg.n_subjects,
    spearman_agg.spearman_rho,
    spearman_agg.null_reason
from (
    select
        spearman_key,
        count(*) as n,
        {% if subject_col is none %}cast(null as bigint){% else %}count(distinct {{ subject_col }}){% endif %} as n_subjects,
        case
            when count(*) >= {{ min_samples }} and var_pop(rank_x) > 0 and var_pop(rank_y) > 0 and {{ enough_subjects }}
                then round(greatest(-1.0, least(1.0, corr(rank_x, rank_y))), 12)
        end as spearman_rho,
        case
            when count(*) < {{ min_samples }} then 'n_below_min'
            when not var_pop(rank_x) > 0 then 'zero_variance_x'
            when not var_pop(rank_y) > 0 then 'zero_variance_y'
            when not {{ enough_subjects }} then 'too_few_subjects'
        end as null_reason
    from (
{%- set keyed -%}
        (
            select {{ wag_group_key(group_by) }} as spearman_key, {{ x }} as spearman_x, {{ y }} as spearman_y{% if subject_col is not none %}, {{ subject_col }}{% endif %}
            from {{ relation }}
            where {{ x }} is not null and {{ y }} is not null
        )
{%- endset %}
{%- if ranks == 'window' %}
        select
            spearman_key,{% if subject_col is not none %}
            {{ subject_col }},{% endif %}
            -- average rank of a tie group at positions a..b = (a + b) / 2 with a = rank() and
            -- b = count of values <= v = cume_dist() * n: one window specification (one sort) per series
            (rank() over wx + round(cume_dist() over wx * count(*) over wg)) / 2.0 as rank_x,
            (rank() over wy + round(cume_dist() over wy * count(*) over wg)) / 2.0 as rank_y
        from {{ keyed }} as keyed
        window wg as (partition by spearman_key),
               wx as (partition by spearman_key order by spearman_x),
               wy as (partition by spearman_key order by spearman_y)
{%- elif ranks == 'value_counts' %}
        select
            keyed.spearman_key,{% if subject_col is not none %}
            keyed.{{ subject_col }},{% endif %}
            ranks_x.rank_avg as rank_x,
            ranks_y.rank_avg as rank_y
        from {{ keyed }} as keyed
{%- for s in ['x', 'y'] %}
        inner join (
            -- a tie group of c values ends at position b = running count of values <= v and starts at
            -- b - c + 1: average rank b - (c - 1) / 2; the keyed rows are read again (not materialised)
            select spearman_key, spearman_{{ s }},
                   sum(c) over (partition by spearman_key order by spearman_{{ s }}
                                rows between unbounded preceding and current row) - (c - 1) / 2.0 as rank_avg
            from (
                select spearman_key, spearman_{{ s }}, count(*) as c
                from {{ keyed }} as keyed_{{ s }}
                group by spearman_key, spearman_{{ s }}
            ) as value_counts
        ) as ranks_{{ s }}
            on ranks_{{ s }}.spearman_key = keyed.spearman_key and ranks_{{ s }}.spearman_{{ s }} = keyed.spearman_{{ s }}
{%- endfor %}
{%- else %}
        {{ exceptions.raise_compiler_error("spearman(): ranks must be 'window' or 'value_counts', got '" ~ ranks ~ "'") }}
{%- endif %}
    ) as ranked
    group by spearman_key
) as spearman_agg
inner join (
    -- the group's columns back from its key: an aggregate per key (any value: the key identifies them),
    -- ~15x cheaper than SELECT DISTINCT over every paired row
    select {{ wag_group_key(group_by) }} as spearman_key{% for c in group_by %}, any_value({{ c }}) as {{ c }}{% endfor %}
    from {{ relation }}
    where {{ x }} is not null and {{ y }} is not null
    group by {{ wag_group_key(group_by) }}
) as spearman_names using (spearman_key)
{%- endmacro %}


{% macro fisher_z(rho) -%}
  {#- Fisher transform of |rho| clamped below 1 (DESIGN.md §5): atanh(min(|r|, 1 - 1e-8)). -#}
  atanh(least(abs({{ rho }}), 1 - 1e-8))
{%- endmacro %}


{% macro fisher_se(n) -%}
  {#- Standard error of Fisher's z: 1 / sqrt(n - 3); NULL for n <= 3. -#}
  case when {{ n }} > 3 then 1.0 / sqrt({{ n }} - 3) end
{%- endmacro %}


{% macro wag_group_key(columns) -%}
  {#- One 64-bit integer identifying a combination of columns (a group key for partitioning), by engine:
      DuckDB hash() and Spark xxhash64() are both 64-bit; two groups share a key with probability about
      g^2 / 2^65 for g groups (3e-11 for 40,000 groups). -#}
  {{ return(adapter.dispatch('wag_group_key', 'wag')(columns)) }}
{%- endmacro %}

{% macro default__wag_group_key(columns) -%}
  hash({{ columns | join(', ') }})
{%- endmacro %}

{% macro spark__wag_group_key(columns) -%}
  xxhash64({{ columns | join(', ') }})
{%- endmacro %}


{% macro spearman_checked_reason(n, n_subjects, variance_reason, min_samples, min_subjects) -%}
  {#- The validity rule of DESIGN.md §5 applied to a correlation computed without thresholds (spearman()
      with min_samples 0 and min_subjects 0, whose null_reason is then only a zero-variance reason):
      'n_below_min', the variance reason, 'too_few_subjects' (that order, as spearman()), NULL when valid.
      n_subjects NULL (individual correlations) skips the subject rule. -#}
  case
      when {{ n }} < {{ min_samples }} then 'n_below_min'
      when {{ variance_reason }} is not null then {{ variance_reason }}
      when {{ n_subjects }} < {{ min_subjects }} then 'too_few_subjects'
  end
{%- endmacro %}
