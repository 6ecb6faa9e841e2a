"""The gold track (DESIGN.md §10): objective questions whose exact answer SQL computes, and the
numeric scoring of each condition's answer.

Questions (``eval_queries.kind = 'gold'``), built from the evaluation's tuples so they cover the same
subjects and days: for single-metric tuples with a window of 7, 14, 30 days or all, in turn a window
**mean**, a **count of days** with data, the **highest day** and the **lowest day**; for multi-metric
tuples a **Spearman correlation** between the first two metrics over 30 days or all history
(windows shorter than 30 days become 30, so that §5's minimum of 10 paired days is reachable).
Answers come from ``sql/gold_window.sql`` and ``sql/gold_spearman.sql`` over ``metric_values``;
a question without a defined answer (no data in the window, fewer than ``min_samples`` pairs, a
constant series) is not asked. Clock-time metrics (bedtimes, displayed as HH:MM) are left out.

Scoring rules (:func:`score_answer`), stated so a reader can check them:

* numbers are read from the answer text after removing ISO dates and clock times; thousands
  separators are accepted ("7,532"), and a leading minus or the Unicode minus;
* ``mean``: correct if some number is within the tolerance max(1 % of |expected|, the display
  rounding of the expected value: 0.5 at >= 100, 0.05 at >= 1, else half a unit of the third
  significant digit);
* ``count_days``: correct if some integer equals the expected count (tolerance 0);
* ``spearman``: correct if some number in [-1, 1] is within max(1 % of |rho|, 0.005) (two decimals);
* ``max_day`` / ``min_day``: days are ISO dates; correct if some sentence (or line) of the answer
  names a day that reaches the extreme (ties: any of them) and at most :data:`MAX_DAYS_NAMED`
  distinct days of the window, so a sentence listing the whole window is not credited, while days
  named elsewhere (other metrics' days in a WAG answer) do not count against it.

The number rules are lenient on purpose (any matching number counts): the offline answers print
several statistics, and the score says whether the right number is *there*, not whether it is the
one the answer points to. An answer with an error (no text) is incorrect.
"""

from __future__ import annotations

import json
import math
import re
from datetime import date, timedelta
from importlib import resources

import duckdb

from ..catalog import Metric
from ..db import fetch_dicts
from .querygen import draw, fill, load_phrasings, openness_for, query_id
from .tuples import QueryTuple

GOLD_KINDS = ("mean", "count_days", "max_day", "min_day", "spearman")
GOLD_CATEGORY = {"mean": "Data Retrieval", "count_days": "Data Retrieval", "max_day": "Data Retrieval",
                 "min_day": "Data Retrieval", "spearman": "Metric Relationships"}
MIN_SAMPLES = 10          # §5 min_samples (dbt var default)
MAX_DAYS_NAMED = 4


def _sql(name: str) -> str:
    return resources.files("wag_cli.eval").joinpath("sql", name).read_text(encoding="utf-8")


def window_stats(con: duckdb.DuckDBPyConnection, subject_id: str, metric_id: str, ref_day: date,
                 window_days: int | None) -> dict:
    """``gold_window.sql``: mean_value, n_days, max/min value, max_days/min_days, first_day."""
    return fetch_dicts(con, _sql("gold_window.sql"), {"subject": subject_id, "metric": metric_id,
                                                      "ref_day": ref_day, "window_days": window_days})[0]


def spearman(con: duckdb.DuckDBPyConnection, subject_id: str, metric_x: str, metric_y: str, ref_day: date,
             window_days: int | None) -> dict:
    """``gold_spearman.sql``: rho, n_pairs, n_distinct_x, n_distinct_y."""
    return fetch_dicts(con, _sql("gold_spearman.sql"), {"subject": subject_id, "metric_x": metric_x,
                                                        "metric_y": metric_y, "ref_day": ref_day,
                                                        "window_days": window_days})[0]


def _is_clock(m: Metric | None) -> bool:
    return bool(m) and m.unit.startswith("minutes from")


def build_gold(con: duckdb.DuckDBPyConnection, tuples: list[QueryTuple], *, n: int, seed: int,
               catalog: dict[str, Metric]) -> list[dict]:
    """Up to ``n`` gold queries (``eval_queries`` rows, kind 'gold') from ``tuples``, in tuple order.

    The kinds are dealt in turn over the eligible tuples so every kind appears once ``n >= 5`` and the
    tuples allow it. ``gold_value`` is the number (mean, count, rho; the extreme value for the day
    kinds) and ``gold_detail`` the days, window start and unit.
    """
    phr = load_phrasings()["gold"]
    single_kinds = ["mean", "count_days", "max_day", "min_day"]
    rows: list[dict] = []
    n_single = 0
    n_spearman = 0
    for t in tuples:
        if len(rows) >= n:
            break
        want_spearman = n_spearman * 5 < len(rows) + 1 and len(t.metrics) >= 2
        if len(t.metrics) == 1:
            m = catalog.get(t.metrics[0])
            if t.window_days == 1 or _is_clock(m) or (m and m.data_kind != "numeric"):
                continue
            kind = single_kinds[n_single % len(single_kinds)]
            st = window_stats(con, t.subject_id, t.metrics[0], t.reference_day, t.window_days)
            if not st["n_days"]:
                continue
            value = {"mean": st["mean_value"], "count_days": float(st["n_days"]),
                     "max_day": st["max_value"], "min_day": st["min_value"]}[kind]
            days = {"max_day": st["max_days"], "min_day": st["min_days"]}.get(kind) or []
            metrics, window = [t.metrics[0]], t.window_days
            detail = {"days": [d.isoformat() for d in days], "n_days": st["n_days"],
                      "first_day": st["first_day"].isoformat(), "unit": m.unit if m else ""}
            n_single += 1
        elif want_spearman:
            x, y = t.metrics[0], t.metrics[1]
            if _is_clock(catalog.get(x)) or _is_clock(catalog.get(y)):
                continue
            window = None if t.window_days is None else max(30, t.window_days)
            sp = spearman(con, t.subject_id, x, y, t.reference_day, window)
            if sp["rho"] is None or sp["n_pairs"] < MIN_SAMPLES or sp["n_distinct_x"] < 2 or sp["n_distinct_y"] < 2:
                continue
            kind, value, metrics = "spearman", float(sp["rho"]), [x, y]
            detail = {"n_pairs": sp["n_pairs"]}
            n_spearman += 1
        else:
            continue
        label = "all" if window is None else str(window)
        templates = phr[kind]
        i = draw(seed, t.tuple_id, kind, "gold") % len(templates)
        question = fill(templates[i], metrics, label, t.reference_day, seed, f"{t.tuple_id}|gold", catalog)
        category = GOLD_CATEGORY[kind]
        rows.append({
            "query_id": query_id(f"{t.tuple_id}|gold|{kind}", seed, question),
            "tuple_id": t.tuple_id, "kind": "gold", "dataset": t.dataset, "subject_id": t.subject_id,
            "metrics": metrics, "reference_day": t.reference_day, "window_days": window,
            "abnormal_level": None, "category": category,
            "openness": openness_for(category, seed, f"{t.tuple_id}|gold"),
            "question": question, "generator": "offline", "seed": seed, "gold_kind": kind,
            "gold_value": float(value), "gold_detail": detail, "phrasing_id": f"gold/{kind}/{i}",
            "gen_status": "offline", "gen_attempts": 0, "gen_note": None, "tuple_order": t.sample_order,
        })
    return rows


# --------------------------------------------------------------------------- scoring

_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_SENTENCE = re.compile(r"\n+|(?<=[.!?;])\s+")
_CLOCK = re.compile(r"\b\d{1,2}:\d{2}\b")
_NUMBER = re.compile(r"(?<![\w.])([-+\u2212]?)(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\w])")


def numbers_in(text: str) -> list[float]:
    """Numbers written in ``text`` (ISO dates and HH:MM times removed first)."""
    text = _CLOCK.sub(" ", _ISO.sub(" ", text or ""))
    out = []
    for sign, whole, frac in _NUMBER.findall(text):
        v = float(whole.replace(",", "") + (frac or ""))
        out.append(-v if sign in ("-", "\u2212") else v)
    return out


def dates_in(text: str) -> set[date]:
    """ISO dates written in ``text`` (invalid ones ignored)."""
    out = set()
    for y, m, d in _ISO.findall(text or ""):
        try:
            out.add(date(int(y), int(m), int(d)))
        except ValueError:
            pass
    return out


def tolerance(kind: str, expected: float) -> float:
    """The stated tolerance of ``kind`` for ``expected`` (see the module docstring)."""
    if kind == "count_days":
        return 0.0
    if kind == "spearman":
        return max(0.01 * abs(expected), 0.005)
    a = abs(expected)
    if a >= 100:
        display = 0.5
    elif a >= 1:
        display = 0.05
    elif a > 0:
        display = 0.5 * 10 ** (math.floor(math.log10(a)) - 2)
    else:
        display = 0.0005
    return max(0.01 * a, display)


def score_answer(query: dict, answer: str | None) -> dict:
    """``{"expected", "found", "tolerance", "correct", "expected_text", "found_text", "rule"}``."""
    kind = query["gold_kind"]
    expected = float(query["gold_value"])
    detail = query["gold_detail"]
    if isinstance(detail, str):
        detail = json.loads(detail)
    tol = tolerance(kind, expected)
    out = {"expected": expected, "found": None, "tolerance": tol, "correct": False,
           "expected_text": None, "found_text": None}
    if kind in ("max_day", "min_day"):
        gold_days = {date.fromisoformat(d) for d in detail["days"]}
        ref = query["reference_day"]
        start = date.fromisoformat(detail["first_day"]) if query["window_days"] is None \
            else ref - timedelta(days=int(query["window_days"]) - 1)
        found, correct = None, False
        for sentence in _SENTENCE.split(answer or ""):
            named = {d for d in dates_in(sentence) if start <= d <= ref}
            if named & gold_days:
                found = found or sorted(named & gold_days)[0]
                correct = correct or len(named) <= MAX_DAYS_NAMED
        out.update(expected_text=",".join(sorted(d.isoformat() for d in gold_days)),
                   found_text=found.isoformat() if found else None, correct=correct,
                   rule=f"a tied extreme day named in a sentence naming <= {MAX_DAYS_NAMED} window days")
        return out
    nums = numbers_in(answer or "")
    if kind == "count_days":
        nums = [v for v in nums if v == int(v)]
    if kind == "spearman":
        nums = [v for v in nums if -1.0 <= v <= 1.0]
    if nums:
        closest = min(nums, key=lambda v: (abs(v - expected), v))
        out["found"] = closest
        out["correct"] = abs(closest - expected) <= tol + 1e-12
    out["rule"] = {"mean": "some number within max(1%, display rounding)",
                   "count_days": "some integer equal",
                   "spearman": "some number in [-1, 1] within max(1%, 0.005)"}[kind]
    return out


def score_all(eval_con: duckdb.DuckDBPyConnection) -> int:
    """Score every stored answer of a gold query (experiment main) into ``eval_gold_scores``
    (replacing earlier scores); returns the number of rows written."""
    rows = fetch_dicts(eval_con, """
        select q.query_id, q.gold_kind, q.gold_value, q.gold_detail, q.reference_day, q.window_days,
               a.condition, a.answer
        from eval_queries as q
        inner join eval_answers as a on a.query_id = q.query_id and a.experiment = 'main'
        where q.kind = 'gold'
    """)
    out = []
    for r in rows:
        s = score_answer(r, r["answer"])
        out.append([r["query_id"], r["condition"], s["expected"], s["found"], s["tolerance"], s["correct"],
                    r["gold_kind"], s["expected_text"], s["found_text"], s["rule"]])
    eval_con.execute("begin transaction")
    eval_con.execute("delete from eval_gold_scores")
    if out:
        eval_con.executemany(
            "insert into eval_gold_scores (query_id, condition, expected, found, tolerance, correct, gold_kind,"
            " expected_text, found_text, rule) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", out)
    eval_con.execute("commit")
    return len(out)


def accuracy(eval_con: duckdb.DuckDBPyConnection) -> list[dict]:
    """Accuracy per condition and gold kind (and category), from ``eval_gold_scores``."""
    return fetch_dicts(eval_con, """
        select s.condition, q.category, s.gold_kind, count(*) as n,
               avg(case when s.correct then 1.0 else 0.0 end) as accuracy
        from eval_gold_scores as s
        inner join eval_queries as q using (query_id)
        group by grouping sets ((s.condition), (s.condition, q.category), (s.condition, q.category, s.gold_kind))
        order by s.condition, q.category nulls first, s.gold_kind nulls first
    """)


__all__ = ["GOLD_KINDS", "build_gold", "score_answer", "score_all", "accuracy", "tolerance",
           "numbers_in", "dates_in", "window_stats", "spearman"]
