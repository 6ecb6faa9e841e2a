"""Query selection for experiments G and L (DESIGN.md §10; paper §3).

Exp-G compares four global weightings and Exp-L three local/fused ones through the same retrieval
(Algorithm 2). A query where two weightings retrieve the same neighbours cannot separate them: their
answers are identical. So these experiments use only **single-metric** queries whose conditions
retrieve **pairwise distinct** neighbour sets, drawn evenly across datasets (the paper: 1,000 queries,
250 per dataset). The main experiment keeps every query.

* :func:`neighbour_sets` runs ``wag_retrieve`` (``sql/retrieve.sql``) once per condition of an
  experiment and returns the selected neighbours of each; no weight is computed here.
* :func:`qualify` says whether the sets are pairwise distinct (and names the first equal pair).
* :func:`select_balanced` takes qualified candidates round-robin over datasets, in query order, up to
  ``n`` (every qualified one when ``n`` is None).
* :func:`select_queries` does all three for a list of candidate queries (stopping early once every
  dataset has its share) and stores the outcome in ``eval_selection``; :func:`selection_summary`
  gives candidates / qualified / selected per dataset, which every run prints.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from itertools import combinations

import duckdb

from ..db import fetch_dicts
from ..retrieve import _sql
from ..settings import RetrievalSettings
from .conditions import EXPERIMENTS, is_candidate  # noqa: F401  (is_candidate re-exported)

#: the experiments that compare weightings through one retrieval
WEIGHTING_EXPERIMENTS = ("exp_g", "exp_l")


@dataclass
class Verdict:
    """One candidate's outcome for one experiment."""

    query_id: str
    dataset: str
    qualified: bool
    reason: str
    sets: dict[str, list[str]] = field(default_factory=dict)
    selected: bool = False


def neighbour_sets(con: duckdb.DuckDBPyConnection, q: dict, experiment: str,
                   settings: RetrievalSettings | None = None) -> dict[str, frozenset[str]]:
    """``{condition: neighbour ids}`` that ``wag_retrieve`` selects for query ``q`` (its gold subject,
    metrics, reference day, window and openness) under each condition of ``experiment``."""
    settings = settings or RetrievalSettings.from_project()
    out: dict[str, frozenset[str]] = {}
    for cond, _method, rank_by in EXPERIMENTS[experiment]:
        params = {"subject": q["subject_id"], "metrics": list(q["metrics"]), "ref_day": q["reference_day"],
                  "window_days": q["window_days"], "eta": float(q["openness"]),
                  **{**settings.macro_params(), "rank_by": rank_by}}
        rows = fetch_dicts(con, _sql("retrieve.sql"), params)
        out[cond] = frozenset(r["node_id"] for r in rows if r["role"] == "neighbour")
    return out


def qualify(sets: dict[str, frozenset[str]]) -> tuple[bool, str]:
    """``(True, 'pairwise distinct')`` when no two conditions' neighbour sets are equal, else
    ``(False, '<a> and <b> retrieve the same neighbours')`` for the first equal pair."""
    for (a, sa), (b, sb) in combinations(sets.items(), 2):
        if sa == sb:
            return False, f"{a} and {b} retrieve the same neighbours" + ("" if sa else " (none)")
    return True, "pairwise distinct"


def select_balanced(verdicts: list[Verdict], n: int | None) -> list[Verdict]:
    """The qualified verdicts taken round-robin over datasets (each dataset in its own order, datasets
    in order of first appearance) up to ``n`` (all qualified when ``n`` is None); marks them selected."""
    queues: dict[str, list[Verdict]] = {}
    for v in verdicts:
        if v.qualified:
            queues.setdefault(v.dataset, []).append(v)
    picked: list[Verdict] = []
    while any(queues.values()) and (n is None or len(picked) < n):
        for ds in list(queues):
            if queues[ds] and (n is None or len(picked) < n):
                picked.append(queues[ds].pop(0))
    for v in picked:
        v.selected = True
    return picked


def select_queries(con: duckdb.DuckDBPyConnection, queries: list[dict], experiment: str, n: int | None = None,
                   settings: RetrievalSettings | None = None, on_done=None) -> list[Verdict]:
    """Verdicts for the candidate queries of ``queries`` (in order) under ``experiment``, the balanced
    selection of :func:`select_balanced` marked. With ``n`` the candidates are examined only until every
    dataset has ``ceil(n / datasets)`` qualified ones (the rest are not retrieved). ``on_done(q)`` after
    each candidate."""
    if experiment not in WEIGHTING_EXPERIMENTS:
        raise ValueError(f"selection applies to {', '.join(WEIGHTING_EXPERIMENTS)}, not {experiment!r}")
    cands = [q for q in queries if is_candidate(q)]
    datasets = list(dict.fromkeys(q["dataset"] for q in cands))
    share = -(-n // len(datasets)) if n and datasets else None
    found: dict[str, int] = {}
    verdicts: list[Verdict] = []
    for q in cands:
        if share is not None and all(found.get(d, 0) >= share for d in datasets):
            break
        sets = neighbour_sets(con, q, experiment, settings)
        ok, reason = qualify(sets)
        key = q.get("query_id") or q["tuple_id"]
        verdicts.append(Verdict(key, q["dataset"], ok, reason, {c: sorted(s) for c, s in sets.items()}))
        found[q["dataset"]] = found.get(q["dataset"], 0) + ok
        if on_done:
            on_done(q)
    select_balanced(verdicts, n)
    return verdicts


def store_selection(eval_con: duckdb.DuckDBPyConnection, experiment: str, verdicts: list[Verdict]) -> None:
    """Replace ``eval_selection``'s rows of ``experiment`` by ``verdicts`` (one transaction)."""
    eval_con.execute("begin transaction")
    try:
        eval_con.execute("delete from eval_selection where experiment = ?", [experiment])
        if verdicts:
            eval_con.executemany(
                "insert into eval_selection (query_id, experiment, dataset, qualified, selected, reason, neighbour_sets)"
                " values (?, ?, ?, ?, ?, ?, ?)",
                [[v.query_id, experiment, v.dataset, v.qualified, v.selected, v.reason, json.dumps(v.sets)]
                 for v in verdicts])
        eval_con.execute("commit")
    except BaseException:
        eval_con.execute("rollback")
        raise


def selected_ids(eval_con: duckdb.DuckDBPyConnection, experiment: str) -> set[str] | None:
    """The query ids selected for ``experiment``, or None when no selection is stored for it."""
    rows = eval_con.execute("select query_id, selected from eval_selection where experiment = ?", [experiment]).fetchall()
    if not rows:
        return None
    return {qid for qid, sel in rows if sel}


def selection_summary(eval_con: duckdb.DuckDBPyConnection) -> list[dict]:
    """Per experiment and dataset: ``candidates`` examined, ``qualified``, ``selected``."""
    return fetch_dicts(eval_con, _sql_eval("selection_summary.sql"))


def _sql_eval(name: str) -> str:
    from importlib import resources

    return resources.files("wag_cli.eval").joinpath("sql", name).read_text(encoding="utf-8")
