"""Storage of evaluation results: one DuckDB file beside the warehouse (DESIGN.md §10).

``WAG_EVAL_DB`` overrides the path; the default is ``<warehouse stem>_eval.duckdb`` beside
:func:`wag_cli.paths.db_path`, so a rebuilt warehouse keeps its evaluation history and two
warehouses never share one.

Tables (created on first use, never dropped by the CLI):

``eval_queries``     one row per generated question: the tuple's gold fields (dataset, subject_id,
                     metrics, reference_day, window_days NULL = all, abnormal_level, kind
                     'single' | 'multi' | 'gold'), the category and openness asked for, the text,
                     the generator ('offline' | 'model:<name>') and, for the gold track, gold_kind
                     and gold_value (computed in SQL from metric_values).
``eval_answers``     one row per (query, experiment, condition): the answer text and what the
                     condition was given (context JSON: nodes, edges, the weight column that ranked
                     them), prompt size in tokens, source ('offline' | 'model:<name>').
``eval_judgements``  one row per (query, experiment, judge, pass, criterion, condition): rank 1..N
                     (Safety: 1 = safe, 0 = not), valid = false when the judge's reply was not a
                     permutation after its retries (rank NULL then).
``eval_gold_scores`` one row per (query, condition): expected and extracted value, tolerance, correct.
"""

from __future__ import annotations

import os
from pathlib import Path

import duckdb

from ..paths import db_path

SCHEMA = """
create table if not exists eval_queries (
    query_id        varchar primary key,
    tuple_id        varchar,
    kind            varchar,          -- 'single' | 'multi' | 'gold'
    dataset         varchar,
    subject_id      varchar,
    metrics         varchar[],
    reference_day   date,
    window_days     integer,          -- NULL = all days up to reference_day
    abnormal_level  varchar,          -- 'low' | 'medium' | 'high' | 'missing' | NULL (multi-metric)
    category        varchar,
    openness        double,
    question        varchar,
    generator       varchar,
    seed            integer,
    gold_kind       varchar,          -- gold track: 'mean' | 'count_days' | 'max_day' | 'min_day' | 'spearman'
    gold_value      double,
    gold_detail     json,
    created_at      timestamp default current_timestamp
);
create table if not exists eval_answers (
    query_id        varchar,
    experiment      varchar,          -- 'main' | 'exp_g' | 'exp_l'
    condition       varchar,          -- main: base, rag, wag; exp_g: w_prior, w_pop, w_ind, w_global; exp_l: w_global, w_local, w_final
    rank_by         varchar,          -- weight column that ranked the neighbours (NULL for base/rag)
    answer          varchar,
    source          varchar,
    context         json,
    prompt_tokens   integer,
    error           varchar,
    created_at      timestamp default current_timestamp,
    primary key (query_id, experiment, condition)
);
create table if not exists eval_judgements (
    query_id        varchar,
    experiment      varchar,
    judge           varchar,          -- 'rubric' | 'model:<name>'
    pass            varchar,          -- 'forward' | 'reversed' (model judge) | 'rubric'
    criterion       varchar,          -- Insightfulness, Relevance, Groundedness, Personalization, Clarity, Safety, Overall
    condition       varchar,
    rank            double,           -- 1 = best; Safety is 1 (safe) / 0 (unsafe)
    score           double,           -- rubric: the raw score the rank came from
    valid           boolean,
    note            varchar,
    created_at      timestamp default current_timestamp,
    primary key (query_id, experiment, judge, pass, criterion, condition)
);
create table if not exists eval_gold_scores (
    query_id        varchar,
    condition       varchar,
    expected        double,
    found           double,
    tolerance       double,
    correct         boolean,
    primary key (query_id, condition)
);
"""


def eval_db_path() -> Path:
    """``WAG_EVAL_DB`` or ``<warehouse stem>_eval.duckdb`` beside the warehouse."""
    env = os.environ.get("WAG_EVAL_DB")
    if env:
        return Path(env).resolve()
    w = db_path()
    return w.with_name(f"{w.stem}_eval.duckdb")


def connect_eval(path: Path | None = None) -> duckdb.DuckDBPyConnection:
    """Open (creating if needed) the evaluation database with every table of :data:`SCHEMA`."""
    con = duckdb.connect(str(path or eval_db_path()))
    con.execute(SCHEMA)
    return con
