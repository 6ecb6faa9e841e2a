{#-
  Incremental refresh by subject (issue 10 item 4).

  int_subject_month_fingerprints holds one hash per (dataset, subject, month) of the subject's
  metric_values rows; the on-run-end hook wag_save_build_fingerprints keeps a copy of it
  (wag_build_fingerprints) after a run in which every model succeeded. int_changed_subjects compares
  the two: a subject whose rows changed in any month (or that appeared or disappeared) is recomputed
  by the subject-level incremental models; every other subject's rows are kept. Population snapshots
  are kept for the month-ends before a dataset's first changed month.
  On Spark (Parquet tables, no DELETE) the models stay full tables.
-#}

{% macro wag_incremental_materialization() -%}
  {#- 'incremental' on DuckDB, 'table' on Spark (Parquet tables have no DELETE). -#}
  {{- return('table' if target.type == 'spark' else 'incremental') -}}
{%- endmacro %}


{% macro wag_changed_subject_filter(column, key='subject_id') -%}
  {#- A predicate for a subject-level incremental model's input: `column` in the changed subjects
      (int_changed_subjects.<key>: subject_id or subject_key) on an incremental run, `true` on a full
      build. The ref is always called, so dbt orders the model after int_changed_subjects. -#}
  {%- set changed = ref('int_changed_subjects') -%}
  {%- if is_incremental() -%}
    {{ column }} in (select {{ key }} from {{ changed }})
  {%- else -%}
    true
  {%- endif -%}
{%- endmacro %}


{% macro wag_delete_changed_subjects(relation, column='subject_id', key='subject_id') -%}
  {#- Pre-hook of a subject-level incremental model: on an incremental run, delete the rows of every
      changed subject (including subjects whose data disappeared) before the model appends theirs. -#}
  {%- if is_incremental() -%}
    delete from {{ relation }} where {{ column }} in (select {{ key }} from {{ ref('int_changed_subjects') }})
  {%- else -%}
    select 1
  {%- endif -%}
{%- endmacro %}


{% macro wag_build_fingerprints_relation() -%}
  {#- The stored fingerprints of the last complete run (not a dbt node: written by on-run-end). -#}
  {{- return(api.Relation.create(database=target.database, schema=target.schema,
                                 identifier='wag_build_fingerprints')) -}}
{%- endmacro %}


{% macro wag_save_build_fingerprints(results) -%}
  {#- on-run-end hook: after a run in which every enabled model of the project (ephemeral ones aside) ran and succeeded, the
      current fingerprints become the stored ones; after any other run (a failure, a --select of some
      models) the stored ones are dropped, so the next run recomputes every subject (safe, not stale).
      A no-op on Spark and before the first build. -#}
  {%- if not execute or target.type == 'spark' -%}
    {{ return('select 1') }}
  {%- endif -%}
  {#- `dbt compile` and `dbt docs generate` render the on-run-end hooks without running them: nothing is
      dropped there, so nothing is said (issue 25: docs generate printed "incremental state dropped") -#}
  {%- if flags.WHICH in ('compile', 'generate', 'docs', 'list', 'ls', 'parse', 'show') -%}
    {{ return('select 1') }}
  {%- endif -%}
  {%- set ok = [] -%}
  {%- for res in results if res.node.resource_type == 'model' and res.status == 'success' -%}
    {%- do ok.append(res.node.unique_id) -%}
  {%- endfor -%}
  {%- set missing = [] -%}
  {%- for node in graph.nodes.values() if node.resource_type == 'model' and node.config.enabled and node.config.materialized != 'ephemeral' and node.unique_id not in ok -%}
    {%- do missing.append(node.name) -%}
  {%- endfor -%}
  {%- set stored = wag_build_fingerprints_relation() -%}
  {%- if missing | length == 0 -%}
    {#- the relation by name (a ref() in a hook is not allowed) -#}
    {%- set current = api.Relation.create(database=target.database, schema=target.schema,
                                          identifier='int_subject_month_fingerprints') -%}
    {{ return('create or replace table ' ~ stored ~ ' as select * from ' ~ current) }}
  {%- else -%}
    {#- said only when there is a stored state to drop: `dbt docs generate`, `dbt test` or a second
        selected run after one have none, and printed the line for nothing (issue 25) -#}
    {%- if adapter.get_relation(database=stored.database, schema=stored.schema, identifier=stored.identifier) -%}
      {{ log("incremental state dropped (the next build recomputes every subject): models not built in this run: " ~ (missing[:5] | join(', ')) ~ (' …' if missing | length > 5 else ''), info=true) }}
    {%- endif -%}
    {{ return('drop table if exists ' ~ stored) }}
  {%- endif -%}
{%- endmacro %}


{% macro wag_reuse_full_history_as_month_end(relation) -%}
  {#- First pre-hook of correlations_population_snapshots on an incremental run (monthly snapshots):
      when a changed dataset's old full-history snapshot day is a month-end before its first changed
      month-end (the new rows all come after it, e.g. the first day of a new month), that snapshot is
      exactly the month-end snapshot the post-hook would compute (the same pooled subject-days <= that
      day), so it is kept as one (is_full_history = false) instead of being ranked again. -#}
  {%- if is_incremental() and var('population_as_of', 'exact') != 'exact' -%}
    update {{ relation }} as p set is_full_history = false
    from (select dataset, min(first_changed_month_end) as first_changed
          from {{ ref('int_changed_subjects') }} group by dataset) as c
    where p.dataset = c.dataset and p.is_full_history
      and p.snapshot_day = last_day(p.snapshot_day) and p.snapshot_day < c.first_changed
      and {{ wag_snapshot_month_filter('p.snapshot_day') }}
  {%- else -%}
    select 1
  {%- endif -%}
{%- endmacro %}


{% macro wag_delete_stale_population_snapshots(relation) -%}
  {#- Pre-hook of correlations_population_snapshots on an incremental run: for every dataset with a
      changed subject, delete its full-history snapshot and every month-end snapshot on or after the
      dataset's first changed month-end (the pooled subject-days <= an earlier month-end are unchanged).
      The model then appends the changed datasets' full-history snapshots and its post-hook the
      month-end snapshots that are missing. -#}
  {%- if is_incremental() -%}
    delete from {{ relation }} as p
    using (select dataset, min(first_changed_month_end) as first_changed
           from {{ ref('int_changed_subjects') }} group by dataset) as c
    where p.dataset = c.dataset and (p.is_full_history or p.snapshot_day >= c.first_changed)
  {%- else -%}
    select 1
  {%- endif -%}
{%- endmacro %}


{% macro wag_forget_build_settings() -%}
  {#- on-run-end hook: drop wag_build_settings (the settings hash `wag build` stores after its own
      successful run). A dbt run by hand may use other vars, so after it the next `wag build` cannot
      trust the stored hash and builds from scratch; `wag build` writes the table again after dbt. -#}
  {%- if not execute or target.type == 'spark' -%}
    {{ return('select 1') }}
  {%- endif -%}
  {{ return('drop table if exists ' ~ api.Relation.create(database=target.database, schema=target.schema,
                                                          identifier='wag_build_settings')) }}
{%- endmacro %}
