"""The compared conditions (DESIGN.md §8, §10; paper Table 1 and experiments G and L).

For every stored query (``eval_queries``) and experiment, each condition's answer is produced and
stored in ``eval_answers`` with what it was given:

=========  ==================================================================================
main       ``base`` (primary metrics' data only), ``rag`` (primary nodes' knowledge + data),
           ``static`` (StaticGraph: WAG's budget and format, neighbours ranked by the prior alone,
           no personal signal), ``full`` (FullContext: every metric with data in the window, never
           trimmed), ``wag`` (the full subgraph, neighbours ranked by w_final); the authors' five
           (wag_cli/eval/conditions.py)
exp_g      WAG with neighbours ranked by ``p_prior`` (W_prior), ``w_pop``, ``w_ind``, ``w_global``
           (conditions w_prior, w_pop, w_ind, w_global; §6: where o or i is NULL the SQL falls back
           to p)
exp_l      WAG ranked by ``w_global``, ``w_local``, ``w_final`` (§7)
=========  ==================================================================================

The question given to QueryParse is the generated text (its parse is recorded), but retrieval uses
the query's gold metrics, window, reference day and openness, so the conditions differ only in the
context they get. Gold-track queries (kind 'gold') are answered under ``main`` only.
Offline every condition uses :func:`wag_cli.answer.offline.offline_answer`; with a model,
:func:`wag_cli.answer.model.model_answer` (same model, same prompt frame). Identical retrievals within a
query (exp_l w_final = main wag, exp_g w_global = exp_l w_global) are computed once and stored under
each condition.

Resumable: a (query, experiment, condition) already in ``eval_answers`` is skipped, and each answer
is committed as soon as it exists, so an interrupted run keeps what it stored.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field, replace
from datetime import date

import duckdb

from ..catalog import Metric
from ..errors import UsageError
from .conditions import EXPERIMENTS, is_candidate  # noqa: F401  (EXPERIMENTS re-exported)
from .tokens import answer_messages, estimate_tokens

#: condition method -> the retrieval it starts from (StaticGraph: WAG's, ranked by the prior;
#: FullContext: RAG's primaries, extended by wag_cli.eval.conditions)
RETRIEVAL_METHOD = {"static": "wag", "full": "rag"}
#: a token budget no prompt reaches: FullContext is never trimmed
UNTRIMMED = 10**9


def experiments_for(choice: str) -> list[str]:
    """``main`` | ``exp_g`` | ``exp_l`` | ``all`` -> experiment names; UsageError otherwise."""
    if choice == "all":
        return list(EXPERIMENTS)
    if choice not in EXPERIMENTS:
        raise UsageError(f"unknown experiment {choice!r}; choose main, exp_g, exp_l or all")
    return [choice]


@dataclass
class Task:
    """One answer to produce."""

    query: dict
    experiment: str
    condition: str
    method: str
    rank_by: str | None


@dataclass
class RunStats:
    """Counts of a run (``skipped`` = already stored)."""

    planned: int = 0
    stored: int = 0
    skipped: int = 0
    errors: int = 0
    by_condition: dict[str, int] = field(default_factory=dict)


def plan(eval_con: duckdb.DuckDBPyConnection, queries: list[dict], experiments: list[str],
         stats: RunStats, selected: dict[str, set[str]] | None = None) -> list[Task]:
    """Tasks not yet stored, in query order. ``main`` takes every query except the Exp-G/L-only
    candidates (``in_main`` false); ``exp_g``/``exp_l`` take the query ids in ``selected[exp]``
    (wag_cli/eval/selection.py; without an entry, the single-metric tuple questions)."""
    selected = selected or {}
    done = set(eval_con.execute("select query_id, experiment, condition from eval_answers").fetchall())
    tasks = []
    for q in queries:
        for exp in experiments:
            if exp == "main" and q.get("in_main") is False:
                continue
            if exp != "main" and not (q["query_id"] in selected[exp] if exp in selected else is_candidate(q)):
                continue
            for cond, method, rank_by in EXPERIMENTS[exp]:
                stats.planned += 1
                if (q["query_id"], exp, cond) in done:
                    stats.skipped += 1
                    continue
                tasks.append(Task(q, exp, cond, method, rank_by))
    return tasks


def _edges(sg_json: dict) -> list[dict]:
    """The subgraph's edges (primary -> selected neighbour) with every weight column."""
    keys = ("w_prior", "w_global", "fallback", "w_local", "w_final", "r_s_signed", "n_s", "r_pop_signed", "n_pop")
    return [{"source": n["primary_node"], "target": n["metric_id"], "rank": n["rank"],
             **{k: n.get(k) for k in keys}} for n in sg_json["nodes"] if n["role"] == "neighbour"]


def _gold_retrieval(q: dict) -> dict:
    return {"subject_id": q["subject_id"], "metrics": list(q["metrics"]),
            "reference_day": q["reference_day"].isoformat() if isinstance(q["reference_day"], date) else q["reference_day"],
            "window_days": "all" if q["window_days"] is None else q["window_days"], "openness": q["openness"]}


def answer_query_tasks(con: duckdb.DuckDBPyConnection, eval_con: duckdb.DuckDBPyConnection, tasks: list[Task], *,
                       catalog: dict[str, Metric], client=None, parse_client=None, stats: RunStats,
                       on_done=None) -> None:
    """Produce and store the answers of ``tasks`` (all of one query), reusing identical retrievals.

    ``con`` is the read-only warehouse, ``eval_con`` the evaluation store. ``client`` None = offline
    answers; ``parse_client`` is given to QueryParse (None = offline parse). ``on_done(task)``
    is called after each stored answer.
    """
    from ..pipeline import answer_prepared, check_subject, prepare_answer
    from ..errors import UsageError
    from ..answer.context import DEFAULT_BUDGET
    from .conditions import full_context_condition, static_graph
    from ..query.periods import rolling
    from ..query.model import parse
    from ..retrieve import retrieve

    if not tasks:
        return
    q = tasks[0].query
    question = q["question"]
    try:
        parsed_query = parse(question, q["reference_day"], catalog=catalog, client=parse_client)
        parsed = parsed_query.to_json()
        # what the question asks for (relationship, trend, comparison, ... and its unit) comes from the
        # text, as in `wag ask`; the metrics, period and openness are the tuple's gold fields, so every
        # condition answers the same question shape and differs only in context
        # the gold period, labelled as the text names it (a named period gets its own correlation)
        label = parsed_query.period.label if parsed_query.period is not None else ""
        gold_parsed = replace(parsed_query, metrics=list(q["metrics"]), reference_day=q["reference_day"],
                              window_days=q["window_days"], openness=float(q["openness"]),
                              period=rolling(q["reference_day"], q["window_days"], label) if label else None)
    except Exception as exc:  # noqa: BLE001 - the parse is recorded, not used for retrieval
        parsed = {"error": str(exc)}
        gold_parsed = None
    # as in `wag ask`: a subject the warehouse does not have, or a reference day outside its data, is
    # an error for every condition, not an answer about "no data" (a query set made from another build)
    subject_error = None
    try:
        span = check_subject(con, q["subject_id"])
        if not (span["first_day"] <= q["reference_day"] <= span["last_day"]):
            raise UsageError(f"{q['reference_day']} is outside {q['subject_id']}'s data "
                             f"({span['first_day']} .. {span['last_day']})")
    except UsageError as exc:
        subject_error = exc
    cache: dict[tuple[str, str | None], tuple] = {}
    for task in tasks:
        key = (task.method, task.rank_by)
        started = time.perf_counter()
        error = None
        if key not in cache:
            try:
                if subject_error is not None:
                    raise subject_error
                kwargs = {"rank_by": task.rank_by} if task.rank_by is not None else {}
                sg = retrieve(con, subject_id=q["subject_id"], metrics=list(q["metrics"]),
                              reference_day=q["reference_day"], window_days=q["window_days"],
                              openness=float(q["openness"]), method=RETRIEVAL_METHOD.get(task.method, task.method),
                              catalog=catalog, **kwargs)
                if task.method == "static":
                    sg = static_graph(sg)
                elif task.method == "full":
                    sg = full_context_condition(con, sg, catalog)
                # the answer comes from the same two steps as `wag ask` (wag_cli.pipeline)
                prepared = prepare_answer(con, question, gold_parsed, sg, catalog, metrics=list(q["metrics"]),
                                          with_full=task.method == "wag")
                analysis, full = prepared.analysis, prepared.full
                # FullContext is never trimmed (DESIGN.md §10): its size is recorded, and noted when it
                # exceeds the budget the other conditions fit in
                budget = UNTRIMMED if task.method == "full" else None
                ans = answer_prepared(prepared, client, budget=budget)
                sg_json = sg.to_json(include_knowledge=task.method != "base")
                tokens = estimate_tokens(answer_messages(question, sg, analysis, full=full, budget=budget))
                note = ans.note
                if task.method == "full" and tokens > DEFAULT_BUDGET:
                    note = "; ".join(filter(None, [note, f"FullContext prompt {tokens} tokens exceeds the "
                                                         f"{DEFAULT_BUDGET}-token budget (not trimmed)"]))
                cache[key] = (ans.text, ans.source, note, sg_json, tokens, None)
            except Exception as exc:  # noqa: BLE001 - one failed condition must not stop the run
                cache[key] = (None, "error", None, None, None, f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}")
        text, source, note, sg_json, tokens, error = cache[key]
        context = None
        if sg_json is not None:
            # the subgraph as Subgraph.to_json gave it (its own rank_by included), plus the edges, the
            # weight that ranked the neighbours under this condition (None = no neighbours), the gold
            # retrieval fields and the parse of the question text
            context = {**sg_json, "edges": _edges(sg_json), "ranked_by": task.rank_by,
                       "retrieval": _gold_retrieval(q), "parse": parsed}
        eval_con.execute(
            "insert or replace into eval_answers (query_id, experiment, condition, rank_by, answer, source, context,"
            " prompt_tokens, error, elapsed_ms) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [q["query_id"], task.experiment, task.condition, task.rank_by, text, source,
             json.dumps(context) if context is not None else None, tokens, error or note,
             round((time.perf_counter() - started) * 1000.0, 1)],
        )
        if error:
            stats.errors += 1
        else:
            stats.stored += 1
        stats.by_condition[f"{task.experiment}/{task.condition}"] = \
            stats.by_condition.get(f"{task.experiment}/{task.condition}", 0) + 1
        if on_done:
            on_done(task)


def group_by_query(tasks: list[Task]) -> list[list[Task]]:
    """Tasks grouped per query, in order."""
    groups: dict[str, list[Task]] = {}
    for t in tasks:
        groups.setdefault(t.query["query_id"], []).append(t)
    return list(groups.values())
