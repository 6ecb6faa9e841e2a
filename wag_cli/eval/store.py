"""Storage of evaluation results: one DuckDB file beside the warehouse (DESIGN.md §10).

``WAG_EVAL_DB`` overrides the path; the default is ``<warehouse stem>_eval.duckdb`` beside
:func:`wag_cli.paths.db_path`, so a rebuilt warehouse keeps its evaluation history and two
warehouses never share one.

Tables (created on first use, never dropped by the CLI):

``eval_queries``     one row per generated question: the tuple's gold fields (dataset, subject_id,
                     metrics, reference_day, window_days NULL = all, abnormal_level, kind
                     'single' | 'multi' | 'gold'), the category and openness asked for, the text,
                     the generator ('offline' | 'model:<name>') and, for the gold track, gold_kind
                     and gold_value (computed in SQL from metric_values). Added by QueryGen:
                     phrasing_id (offline template used), gen_status ('offline' | 'model' |
                     'fallback' = the model failed and the offline phrasing was stored),
                     gen_attempts, gen_note, tuple_order (sample_order of the tuple).
``eval_answers``     one row per (query, experiment, condition): the answer text and what the
                     condition was given (context JSON: nodes, edges, the weight column that ranked
                     them), prompt size in tokens, source ('offline' | 'model:<name>').
                     prompt_tokens is an estimate: ceil(characters / 4) of the exact messages the
                     model gets (wag_cli.eval.tokens); elapsed_ms the wall time of retrieval+answer.
``eval_judgements``  one row per (query, experiment, judge, pass, criterion, condition): rank 1..N
                     (Safety: 1 = safe, 0 = not), valid = false when the judge's reply was not a
                     permutation after its retries (rank NULL then).
``eval_selection``   one row per (candidate query, experiment) of Exp-G / Exp-L (DESIGN.md §10,
                     wag_cli/eval/selection.py): whether the conditions' neighbour sets are pairwise
                     distinct (qualified), whether it was selected (balanced over datasets), the
                     reason and the sets. eval_queries.in_main = false marks a single-metric question
                     generated only as an Exp-G/L candidate (``wag eval queries --gl-n``), which the
                     main experiment leaves out.
``eval_gold_scores`` one row per (query, condition): expected and extracted value, tolerance, correct;
                     gold_kind, expected_text / found_text (ISO days for max_day/min_day), rule.
``eval_human_sample`` human evaluation (§10, :mod:`wag_cli.eval.human_sample`): one row per (experiment,
                     query) shown to raters: sample_order (1 = first shown), the seed of the draw and
                     the conditions whose answers are shown (fixed when sampled, so a later run that
                     adds a condition does not change a task a rater has started).
``eval_human_rankings`` one row per (experiment, query, rater, criterion, condition): rank 1..k (no
                     ties; Overall always, the other ranked criteria optionally), the anonymous label
                     the rater saw ('A', 'B', ...; the shuffle is seeded by rater + experiment + query)
                     and source ('web' = ``wag eval human serve``, 'file:<name>' = imported file).
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
create table if not exists eval_human_sample (
    experiment      varchar,
    query_id        varchar,
    sample_order    integer,          -- 1 = shown first
    seed            integer,
    conditions      varchar[],        -- the conditions whose answers raters see
    created_at      timestamp default current_timestamp,
    primary key (experiment, query_id)
);
create table if not exists eval_human_rankings (
    experiment      varchar,
    query_id        varchar,
    rater           varchar,
    criterion       varchar,          -- Overall (required), Insightfulness, Relevance, Groundedness, Personalization, Clarity
    condition       varchar,
    rank            integer,          -- 1 = best, a permutation of 1..k per (query, rater, criterion)
    label           varchar,          -- the anonymous label the rater saw
    source          varchar,          -- 'web' | 'file:<name>'
    created_at      timestamp default current_timestamp,
    primary key (experiment, query_id, rater, criterion, condition)
);
alter table eval_queries add column if not exists phrasing_id varchar;
alter table eval_queries add column if not exists gen_status varchar;
alter table eval_queries add column if not exists gen_attempts integer;
alter table eval_queries add column if not exists gen_note varchar;
alter table eval_queries add column if not exists tuple_order integer;
alter table eval_answers add column if not exists elapsed_ms double;
alter table eval_queries add column if not exists in_main boolean;
create table if not exists eval_selection (
    query_id        varchar,
    experiment      varchar,          -- 'exp_g' | 'exp_l'
    dataset         varchar,
    qualified       boolean,          -- the conditions' neighbour sets are pairwise distinct
    selected        boolean,          -- in the experiment (balanced over datasets)
    reason          varchar,
    neighbour_sets  json,             -- {condition: [neighbour ids]}
    primary key (query_id, experiment)
);
alter table eval_gold_scores add column if not exists gold_kind varchar;
alter table eval_gold_scores add column if not exists expected_text varchar;
alter table eval_gold_scores add column if not exists found_text varchar;
alter table eval_gold_scores add column if not exists rule varchar;
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


QUERY_COLUMNS = (
    "query_id", "tuple_id", "kind", "dataset", "subject_id", "metrics", "reference_day", "window_days",
    "abnormal_level", "category", "openness", "question", "generator", "seed", "gold_kind", "gold_value",
    "gold_detail", "phrasing_id", "gen_status", "gen_attempts", "gen_note", "tuple_order", "in_main",
)


def replace_queries(con: duckdb.DuckDBPyConnection, rows: list[dict], kinds: tuple[str, ...]) -> int:
    """Replace every ``eval_queries`` row of ``kinds`` by ``rows`` (one transaction); returns len(rows).

    Stored answers of a query id that comes back (same tuple, seed and text) stay valid, so a re-run
    of the same generation keeps ``wag eval run`` resumable.
    """
    import json as _json

    con.execute("begin transaction")
    try:
        con.execute("delete from eval_queries where list_contains(?, kind)", [list(kinds)])
        if rows:
            cols = ", ".join(QUERY_COLUMNS)
            marks = ", ".join("?" for _ in QUERY_COLUMNS)
            con.executemany(
                f"insert into eval_queries ({cols}) values ({marks})",
                [[_json.dumps(r[c]) if c == "gold_detail" and r.get(c) is not None else r.get(c)
                  for c in QUERY_COLUMNS] for r in rows],
            )
        con.execute("commit")
    except BaseException:
        con.execute("rollback")
        raise
    return len(rows)


def read_queries(con: duckdb.DuckDBPyConnection, kinds: tuple[str, ...] | None = None,
                 limit: int | None = None) -> list[dict]:
    """``eval_queries`` rows as dicts, in generation order (tuple_order, then query_id)."""
    from ..db import fetch_dicts

    sql = "select * from eval_queries"
    params: list = []
    if kinds:
        sql += " where list_contains(?, kind)"
        params.append(list(kinds))
    sql += " order by kind = 'gold', tuple_order nulls last, query_id"
    if limit is not None:
        sql += f" limit {int(limit)}"
    return fetch_dicts(con, sql, params)


def export_jsonl(rows: list[dict], path: Path) -> int:
    """Write ``rows`` as JSON lines (dates ISO, gold_detail parsed); returns the number written."""
    import json as _json
    from datetime import date, datetime

    def default(o):
        if isinstance(o, (date, datetime)):
            return o.isoformat()
        return str(o)

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for r in rows:
            r = {k: v for k, v in r.items() if k != "created_at"}
            if isinstance(r.get("gold_detail"), str):
                r["gold_detail"] = _json.loads(r["gold_detail"])
            fh.write(_json.dumps(r, default=default, ensure_ascii=False) + "\n")
    return len(rows)
