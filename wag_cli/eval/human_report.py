"""The human-evaluation part of ``wag eval report`` (DESIGN.md §10 "Human evaluation"; paper Table 2
and Tables 21-22).

Per experiment and criterion (Overall always; other criteria when raters ranked them):

* **mean rank per condition** for each rater, the **human average** (per (query, condition) the mean
  over the raters who ranked it, then the mean over queries) and, beside them, each judge's mean rank
  over the same queries (the rubric judge labelled ``rubric``) — the views of ``sql/human_views.sql``;
* **Krippendorff's alpha (ordinal)** between raters: units are the (query, condition) pairs, values
  the ranks, a rater who did not rank a query is missing (:mod:`wag_cli.eval.krippendorff`);
* **Spearman's rho** between the mean human rank and each judge's rank over the (query, condition)
  pairs both ranked (``scipy.stats.spearmanr``, average ranks for ties).
"""

from __future__ import annotations

import math
from importlib import resources

import duckdb
from scipy.stats import spearmanr

from .human_store import CRITERIA
from .judge import CONDITION_ORDER
from .krippendorff import alpha, units_matrix
from .report import create_views
from .run import EXPERIMENTS


def _sql(name: str) -> str:
    return resources.files("wag_cli.eval").joinpath("sql", name).read_text(encoding="utf-8")


def _rows(con, sql: str, params=None) -> list[dict]:
    cur = con.execute(sql, params) if params is not None else con.execute(sql)
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def _num(x):
    return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else float(x)


def rater_alpha(rows: list[tuple[str, object, float]]) -> dict:
    """Krippendorff's alpha (ordinal) from ``(rater, unit, rank)`` rows (§10): ``{"value", "n_raters",
    "n_units", "note"}``; value None with the reason when fewer than two raters or alpha is undefined."""
    raters, units, matrix = units_matrix(rows)
    out = {"value": None, "n_raters": len(raters), "n_units": len(units), "note": None}
    if len(raters) < 2:
        out["note"] = f"needs two or more raters (have {len(raters)})"
        return out
    try:
        out["value"] = _num(alpha(matrix, "ordinal"))
    except ValueError as exc:
        out["note"] = str(exc)
    return out


def rank_spearman(human: list[float], judge: list[float]) -> dict:
    """Spearman's rho (scipy) between mean human ranks and a judge's ranks over paired (query,
    condition) units (§10): ``{"rho", "p_value", "n_pairs", "note"}``; rho None with the reason for
    fewer than 3 pairs or a constant side."""
    out = {"rho": None, "p_value": None, "n_pairs": len(human), "note": None}
    if len(human) < 3:
        out["note"] = f"needs at least 3 (query, condition) pairs (have {len(human)})"
    elif len(set(human)) < 2 or len(set(judge)) < 2:
        out["note"] = "one side ranks every pair the same"
    else:
        res = spearmanr(human, judge)
        out.update(rho=_num(res.statistic), p_value=_num(res.pvalue))
    return out


def _order(exp: str, conds) -> list[str]:
    order = CONDITION_ORDER.get(exp, ())
    return sorted(set(conds), key=lambda c: (order.index(c) if c in order else len(order), c))


def human_report(con: duckdb.DuckDBPyConnection, judge: str | None = None) -> dict:
    """The human-evaluation section (DESIGN.md §10; module docstring) as a JSON-ready dict:
    ``{"experiments": {exp: {"conditions", "raters", "judges", "criteria": {criterion: {"columns",
    "mean_rank": {condition: {column: value}}, "n_queries": {column: n}, "alpha", "spearman":
    {judge: {...}}}}}}}``. Columns: ``rater <id>`` per rater, ``human average``, then the judges.
    ``judge`` restricts the judges shown. Empty ``experiments`` when no human rankings are stored."""
    create_views(con)
    con.execute(_sql("human_views.sql"))
    known = list(EXPERIMENTS)
    exps = sorted({r[0] for r in con.execute("select distinct experiment from eval_human_rankings").fetchall()},
                  key=lambda e: (known.index(e) if e in known else len(known), e))
    out: dict = {"experiments": {}}
    for exp in exps:
        p = {"experiment": exp}
        per_rater = _rows(con, "select * from eval_human_mean_rank where experiment = $experiment", p)
        avg = _rows(con, "select * from eval_human_avg_mean_rank where experiment = $experiment", p)
        judged = [r for r in _rows(con, "select * from eval_human_judge_mean_rank where experiment = $experiment", p)
                  if judge is None or r["judge"] == judge]
        pairs = [r for r in _rows(con, "select * from eval_human_judge_pairs where experiment = $experiment"
                                       " order by judge, criterion, query_id, condition", p)
                 if judge is None or r["judge"] == judge]
        long = con.execute("select criterion, rater, query_id, condition, rank from eval_human_rankings"
                           " where experiment = ? order by criterion, rater, query_id, condition", [exp]).fetchall()
        raters = sorted({r["rater"] for r in per_rater})
        judges = sorted({r["judge"] for r in judged}, key=lambda j: (j != "rubric", j))
        conditions = _order(exp, [r["condition"] for r in per_rater])
        criteria = [c for c in CRITERIA if any(r["criterion"] == c for r in per_rater)]
        columns = [f"rater {r}" for r in raters] + ["human average"] + judges
        sections = {}
        for crit in criteria:
            table = {c: {col: None for col in columns} for c in conditions}
            n = {col: 0 for col in columns}
            for r in per_rater:
                if r["criterion"] == crit:
                    table[r["condition"]][f"rater {r['rater']}"] = _num(r["mean_rank"])
                    n[f"rater {r['rater']}"] = max(n[f"rater {r['rater']}"], r["n_queries"])
            for r in avg:
                if r["criterion"] == crit:
                    table[r["condition"]]["human average"] = _num(r["mean_rank"])
                    n["human average"] = max(n["human average"], r["n_queries"])
            for r in judged:
                if r["criterion"] == crit and r["condition"] in table:
                    table[r["condition"]][r["judge"]] = _num(r["mean_rank"])
                    n[r["judge"]] = max(n[r["judge"]], r["n_queries"])
            spear = {}
            for j in judges:
                sel = [r for r in pairs if r["judge"] == j and r["criterion"] == crit]
                spear[j] = rank_spearman([float(r["human_rank"]) for r in sel], [float(r["judge_rank"]) for r in sel])
            sections[crit] = {
                "columns": columns, "mean_rank": table, "n_queries": n,
                "alpha": rater_alpha([(rater, (qid, cond), rank) for c, rater, qid, cond, rank in long if c == crit]),
                "spearman": spear,
            }
        out["experiments"][exp] = {"conditions": conditions, "raters": raters, "judges": judges,
                                   "criteria": sections}
    return out
