"""Scoring QueryParse (DESIGN.md §8) against labelled questions — the generated query set's gold
fields (``wag eval parse``) or a hand-labelled set (:func:`wag_cli.eval.parse_score.evaluate`).

A labelled row is ``{"question", "as_of", "metrics", "window_days", "reference_day", "category"}``
(``window_days`` None = all history). Per row, four checks:

* ``metric_exact`` — the parsed metric *set* equals the label's;
* ``window`` — the parsed window equals the label's (None = all);
* ``reference_day`` — the parsed reference day equals the label's;
* ``openness_in_range`` — the parsed openness lies inside the labelled category's range (inclusive,
  1e-9 slack); ``category`` (the parsed category equals the label's) is reported beside them.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Callable, Iterable

from ..catalog import Metric
from ..categories import CATEGORY_OPENNESS

CHECKS = ("metric_exact", "window", "reference_day", "openness_in_range", "category")


def score_row(row: dict, parsed) -> dict:
    """The checks of one labelled row against a :class:`wag_cli.query.parsed.ParsedQuery`."""
    lo, hi = CATEGORY_OPENNESS[row["category"]]
    return {
        "metric_exact": set(parsed.metrics) == set(row["metrics"]),
        "window": parsed.window_days == row["window_days"],
        "reference_day": parsed.reference_day == row["reference_day"],
        "openness_in_range": lo - 1e-9 <= parsed.openness <= hi + 1e-9,
        "category": parsed.category == row["category"],
    }


def score_rows(rows: Iterable[dict], parser: Callable, catalog: dict[str, Metric]) -> list[dict]:
    """Parse and score every row: ``[{**row, "checks": {...}, "parsed": ParsedQuery}]``.

    ``parser(question, as_of, catalog)`` returns a ParsedQuery (e.g. :func:`wag_cli.query.offline.parse_offline`,
    or a closure over :func:`wag_cli.query.model.parse` with a model client).
    """
    out = []
    for row in rows:
        p = parser(row["question"], row["as_of"], catalog)
        out.append({**row, "checks": score_row(row, p), "parsed": p})
    return out


def summarise(scored: list[dict], by: str | None = "category") -> dict:
    """Shares of rows passing each check: ``{"all": {...}, <group>: {...}}`` with ``n`` per group.

    Groups by the labelled field ``by`` (None = overall only); shares are rounded to 4 decimals.
    """
    groups: dict[str, list[dict]] = {"all": scored}
    if by:
        for r in scored:
            groups.setdefault(str(r[by]), []).append(r)
    out = {}
    for name, rs in groups.items():
        n = len(rs)
        out[name] = {"n": n, **{c: (round(sum(r["checks"][c] for r in rs) / n, 4) if n else 0.0) for c in CHECKS}}
    return out


def evaluate_labelled(rows: Iterable[dict], *, as_of: date, catalog: dict[str, Metric], parser: Callable) -> dict:
    """Score the hand-labelled set format (``q, metrics, window (int | "all"), ref_offset?, type``).

    Returns ``{"n", "metric_exact", "window_accuracy", "openness_in_range", "category_accuracy",
    "failures"}``; window_accuracy requires both the window and the reference day (as_of + ref_offset).
    """
    labelled = [{"question": r["q"], "as_of": as_of, "metrics": r["metrics"],
                 "window_days": None if r["window"] == "all" else r["window"],
                 "reference_day": as_of + timedelta(days=r.get("ref_offset", 0)),
                 "category": r["type"], "_src": r} for r in rows]
    scored = score_rows(labelled, parser, catalog)
    tally = {"metric_exact": 0, "window_accuracy": 0, "openness_in_range": 0, "category_accuracy": 0}
    failures = []
    for s in scored:
        c, p, src = s["checks"], s["parsed"], s["_src"]
        ok = {"metric_exact": c["metric_exact"], "window_accuracy": c["window"] and c["reference_day"],
              "openness_in_range": c["openness_in_range"], "category_accuracy": c["category"]}
        for k, v in ok.items():
            tally[k] += bool(v)
        if not all(ok.values()):
            got_window = "all" if p.window_days is None else p.window_days
            failures.append({"q": src["q"], "got": {"metrics": p.metrics, "window": got_window,
                                                    "ref_offset": p.ref_offset, "category": p.category},
                             "want": {"metrics": src["metrics"], "window": src["window"],
                                      "ref_offset": src.get("ref_offset", 0), "category": src["type"]},
                             "failed": [k for k, v in ok.items() if not v]})
    n = len(scored)
    out = {"n": n, **{k: (round(v / n, 4) if n else 0.0) for k, v in tally.items()}}
    out["failures"] = failures
    return out


def labelled_rows(rows: Iterable[dict], as_of: date) -> list[dict]:
    """The hand-labelled format (``../shared/eval``: ``q, metrics, window (int | "all"), ref_offset?,
    type``) as labelled rows, each asked as of ``as_of``."""
    return [{"question": r["q"], "as_of": as_of, "metrics": list(r["metrics"]),
             "window_days": None if r["window"] == "all" else r["window"],
             "reference_day": as_of + timedelta(days=r.get("ref_offset", 0)),
             "category": r["type"]} for r in rows]


def compare_parsers(rows: list[dict], parsers: dict[str, Callable], catalog: dict[str, Metric],
                    by: str | None = "category") -> dict:
    """Both QueryParse paths side by side (DESIGN.md §8 "QueryParse with a model"): ``{name: {"figures":
    summarise(...), "fallbacks": n, "scored": [...]}}`` for each ``parsers[name]`` over the same rows."""
    out = {}
    for name, parser in parsers.items():
        scored = score_rows(rows, parser, catalog)
        out[name] = {"figures": summarise(scored, by=by), "scored": scored,
                     "fallbacks": sum(1 for s in scored if s["parsed"].fallback_reason)}
    return out


def query_rows(queries: list[dict]) -> list[dict]:
    """``eval_queries`` rows -> labelled rows; the question is asked as of its reference day."""
    return [{"query_id": q["query_id"], "question": q["question"], "as_of": q["reference_day"],
             "metrics": list(q["metrics"]), "window_days": q["window_days"],
             "reference_day": q["reference_day"], "category": q["category"], "kind": q["kind"],
             "dataset": q["dataset"]} for q in queries]


def evaluate(rows: Iterable[dict], *, as_of: date = date(2020, 1, 1), catalog: dict[str, Metric] | None = None,
             parser=None) -> dict:
    """Score a parser on hand-labelled rows (``eval/README.md`` fields: q, metrics, window, ref_offset?,
    type) with :func:`evaluate_labelled`; ``parser(question, as_of, catalog)`` defaults to the offline
    parse, ``catalog`` to the shipped one. Returns ``{"n", "metric_exact", "window_accuracy",
    "openness_in_range", "category_accuracy", "failures"}``."""
    from ..catalog import load_catalog
    from ..query.offline import parse_offline

    return evaluate_labelled(rows, as_of=as_of, catalog=catalog if catalog is not None else load_catalog(),
                             parser=parser or parse_offline)
