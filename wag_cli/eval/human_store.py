"""A rater's task in the human evaluation and where its rankings go (DESIGN.md §10 "Human evaluation";
paper §3, App. H).

The task of rater R is every sampled query (``eval_human_sample``, drawn by
:mod:`wag_cli.eval.human_sample`) in experiment order, then sample order. Each query shows the
question, the person's context line (subject, dataset, period) and the answers of the sampled
conditions, *anonymised* (labels A, B, ... — never the condition names or what they were given) and
*shuffled per rater*: the order is ``random.Random(f"{rater}:{experiment}:{query_id}")`` applied to the
sorted conditions, so the same rater always sees the same order (a reload, an exported file) and two
raters see independent orders.

A rater ranks the answers without ties on Overall and, optionally, on the other ranked criteria
(:data:`CRITERIA`): a ranking is a list of labels, best first, holding each label once. Rankings are
stored in ``eval_human_rankings`` (:mod:`wag_cli.eval.store`), one row per criterion and condition, by
:func:`store_ranking`; the web page and the imported files both go through :func:`check_ranking`.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from datetime import date
from importlib import resources

import duckdb

from ..errors import UsageError
from .judge import RANKED_CRITERIA
from .run import EXPERIMENTS

#: Overall first (required), then the optional criteria in the judge's order
CRITERIA = ("Overall",) + tuple(c for c in RANKED_CRITERIA if c != "Overall")
RATER_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def _sql(name: str) -> str:
    return resources.files("wag_cli.eval").joinpath("sql", name).read_text(encoding="utf-8")


def check_rater(rater: str) -> str:
    """The rater id, or :class:`UsageError` unless 1-64 letters, digits, ``_ . -`` (it names files)."""
    rater = (rater or "").strip()
    if not RATER_RE.match(rater):
        raise UsageError(f"rater id {rater!r}: use 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit")
    return rater


def labels_for(n: int) -> list[str]:
    """``["A", "B", ...]`` for ``n`` answers."""
    return [chr(ord("A") + i) for i in range(n)]


def shuffled(conditions: list[str], rater: str, experiment: str, query_id: str) -> list[str]:
    """The order rater ``rater`` sees ``conditions`` in (seeded by rater + experiment + query, §10)."""
    order = sorted(conditions)
    random.Random(f"{rater}:{experiment}:{query_id}").shuffle(order)
    return order


def period_text(reference_day, window_days) -> str:
    """The period a query asks about, in words: '7 days ending 2020-01-07', 'all days up to ...'."""
    day = reference_day.isoformat() if isinstance(reference_day, date) else str(reference_day)
    if window_days is None:
        return f"all days up to {day}"
    return day if int(window_days) == 1 else f"{int(window_days)} days ending {day}"


@dataclass
class Item:
    """One query as rater ``rater`` sees it: answers in their shuffled order, labelled A, B, ..."""

    experiment: str
    query_id: str
    position: int
    total: int
    question: str
    subject_id: str
    dataset: str | None
    period: str
    labels: list[str]
    conditions: list[str]           # conditions[i] is shown as labels[i] (never sent to the rater)
    answers: list[str]
    ranked: dict[str, list[str]] = field(default_factory=dict)   # stored rankings, labels best first

    def public(self) -> dict:
        """What the page and the exported files show: no condition names (§10: anonymised)."""
        return {"experiment": self.experiment, "query_id": self.query_id, "position": self.position,
                "total": self.total, "question": self.question, "subject": self.subject_id,
                "dataset": self.dataset, "period": self.period, "criteria": list(CRITERIA),
                "required": ["Overall"],
                "answers": [{"label": lab, "key": str(i + 1), "text": text}
                            for i, (lab, text) in enumerate(zip(self.labels, self.answers))]}


def task(con: duckdb.DuckDBPyConnection, experiments: list[str] | None = None) -> list[tuple[str, str]]:
    """The sampled ``(experiment, query_id)`` pairs in task order (experiments as
    :data:`wag_cli.eval.run.EXPERIMENTS` lists them, others after, then sample order)."""
    rows = con.execute("select experiment, query_id, sample_order from eval_human_sample").fetchall()
    known = list(EXPERIMENTS)
    if experiments:
        rows = [r for r in rows if r[0] in experiments]
    rows.sort(key=lambda r: (known.index(r[0]) if r[0] in known else len(known), r[0], r[2], r[1]))
    return [(e, q) for e, q, _ in rows]


def load_item(con: duckdb.DuckDBPyConnection, experiment: str, query_id: str, rater: str,
              position: int = 0, total: int = 0) -> Item:
    """The sampled query ``(experiment, query_id)`` as ``rater`` sees it, with what ``rater`` already
    stored for it. Raises :class:`UsageError` when it is not in the sample."""
    cur = con.execute(_sql("human_item.sql"), {"experiment": experiment, "query_id": query_id})
    cols = [d[0] for d in cur.description]
    rows = [dict(zip(cols, r)) for r in cur.fetchall()]
    if not rows:
        raise UsageError(f"query {query_id!r} of experiment {experiment!r} is not in the human-evaluation sample")
    by_cond = {r["condition"]: r for r in rows}
    order = shuffled(list(by_cond), rater, experiment, query_id)
    labels = labels_for(len(order))
    first = rows[0]
    item = Item(experiment=experiment, query_id=query_id, position=position, total=total,
                question=first["question"] or "", subject_id=first["subject_id"], dataset=first["dataset"],
                period=period_text(first["reference_day"], first["window_days"]), labels=labels,
                conditions=order, answers=[by_cond[c]["answer"] or "" for c in order])
    label_of = dict(zip(order, labels))
    stored = con.execute("select criterion, condition, rank from eval_human_rankings where experiment = ? and"
                         " query_id = ? and rater = ? order by criterion, rank", [experiment, query_id, rater]).fetchall()
    for crit, cond, _rank in stored:
        if cond in label_of:
            item.ranked.setdefault(crit, []).append(label_of[cond])
    return item


def check_ranking(labels: list[str], rankings: dict) -> tuple[dict[str, list[str]], str | None]:
    """Validate a rater's rankings of one query (§10: a permutation without ties per criterion).

    ``rankings``: ``{criterion: [label, ...] best first}`` or ``{criterion: {label: rank}}`` (ranks
    1..k). A criterion with an empty list / dict, or absent, is not ranked; Overall is required.
    Returns ``(rankings as label lists, None)`` or ``({}, reason)``.
    """
    if not isinstance(rankings, dict):
        return {}, "rankings must be an object {criterion: [labels best first]}"
    out: dict[str, list[str]] = {}
    k = len(labels)
    for crit, value in rankings.items():
        if crit not in CRITERIA:
            return {}, f"unknown criterion {crit!r} (criteria: {', '.join(CRITERIA)})"
        if value in (None, [], {}, ""):
            continue
        if isinstance(value, dict):
            ranks = value
            bad = [lab for lab in ranks if lab not in labels]
            if bad:
                return {}, f"{crit}: unknown label {bad[0]!r} (labels: {', '.join(labels)})"
            if any(not isinstance(r, int) or isinstance(r, bool) or not 1 <= r <= k for r in ranks.values()):
                return {}, f"{crit}: ranks must be whole numbers 1..{k}"
            if len(set(ranks.values())) != len(ranks):
                tied = sorted(lab for lab in ranks if list(ranks.values()).count(ranks[lab]) > 1)
                return {}, f"{crit}: {', '.join(tied)} share a rank (no ties allowed)"
            if len(ranks) != k:
                missing = [lab for lab in labels if lab not in ranks]
                return {}, f"{crit}: no rank for {', '.join(missing)} (rank all {k} answers or none)"
            value = sorted(ranks, key=ranks.get)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return {}, f"{crit}: expected a list of labels best first, e.g. {labels}"
        value = [v.strip().upper() for v in value]
        bad = [v for v in value if v not in labels]
        if bad:
            return {}, f"{crit}: unknown label {bad[0]!r} (labels: {', '.join(labels)})"
        dup = sorted({v for v in value if value.count(v) > 1})
        if dup:
            return {}, f"{crit}: {', '.join(dup)} listed more than once (a tie; each label once)"
        if len(value) != k:
            missing = [lab for lab in labels if lab not in value]
            return {}, f"{crit}: {', '.join(missing)} not ranked (rank all {k} answers or none)"
        out[crit] = value
    if "Overall" not in out:
        return {}, "Overall is required: rank every answer on Overall"
    return out, None


def store_ranking(con: duckdb.DuckDBPyConnection, item: Item, rater: str, rankings: dict[str, list[str]],
                  source: str) -> None:
    """Replace ``rater``'s rankings of ``item`` by ``rankings`` (checked label lists, best first) in
    one transaction; one ``eval_human_rankings`` row per criterion and condition (§10)."""
    cond_of = dict(zip(item.labels, item.conditions))
    rows = [(item.experiment, item.query_id, rater, crit, cond_of[lab], pos, lab, source)
            for crit, order in rankings.items() for pos, lab in enumerate(order, start=1)]
    con.execute("begin transaction")
    try:
        con.execute("delete from eval_human_rankings where experiment = ? and query_id = ? and rater = ?",
                    [item.experiment, item.query_id, rater])
        con.executemany("insert into eval_human_rankings (experiment, query_id, rater, criterion, condition, rank,"
                        " label, source) values (?, ?, ?, ?, ?, ?, ?, ?)", rows)
        con.execute("commit")
    except BaseException:
        con.execute("rollback")
        raise


def ranked_pairs(con: duckdb.DuckDBPyConnection, rater: str) -> set[tuple[str, str]]:
    """``(experiment, query_id)`` pairs ``rater`` has ranked on Overall."""
    return set(con.execute("select distinct experiment, query_id from eval_human_rankings where rater = ?"
                           " and criterion = 'Overall'", [rater]).fetchall())


def next_item(con: duckdb.DuckDBPyConnection, rater: str, experiments: list[str] | None = None) -> dict:
    """Progress and the first query of the task ``rater`` has not ranked (resume point, §10):
    ``{"rater", "done", "total", "item": Item.public() | None}`` (None when every query is ranked)."""
    pairs = task(con, experiments)
    done = ranked_pairs(con, rater)
    n_done = sum(p in done for p in pairs)
    for i, (exp, qid) in enumerate(pairs, start=1):
        if (exp, qid) not in done:
            item = load_item(con, exp, qid, rater, position=i, total=len(pairs))
            return {"rater": rater, "done": n_done, "total": len(pairs), "item": item.public()}
    return {"rater": rater, "done": n_done, "total": len(pairs), "item": None}
