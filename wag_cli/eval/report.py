"""The evaluation report (DESIGN.md §10 "Evaluation"; paper Tables 1, 10-12).

:func:`build_report` (re)creates the report views of ``sql/report_views.sql`` in the evaluation
database — so an analyst can query the same figures — and reads them back as one JSON-ready dict.
Per judge (never mixed: the rubric judge's section is labelled ``rubric``) and experiment:

* **mean rank** per condition and criterion (1 = best; for Safety the value is the share of answers
  judged safe), over queries whose ranking is *complete* (every answered condition has a valid rank);
  a model judge's rank of a condition is the mean over its valid passes (forward, reversed);
* **win rate**: the share of queries a condition ranked first on Overall; t conditions tied for first
  get 1/t of the win each, so win rates of an experiment sum to 1;
* **breakdown** of Overall mean rank and win rate by dataset, category, window and abnormal level;
* **Friedman test** across conditions on the Overall ranks of complete queries
  (``scipy.stats.friedmanchisquare``, tie-corrected) and **Kendall's W** = chi2 / (n (k - 1)) for n
  queries and k conditions; needs k >= 3 and n >= 2, else reported as NULL with the reason;
* **judge validity**: valid / invalid replies per pass, and for model judges the **position-swap
  agreement**: the share of (query, criterion) pairs whose forward and reversed rankings are identical
  (``exact``) or put the same condition(s) first (``top``).

Besides the judges: gold-track accuracy per condition, overall and by category and gold kind
(``eval_gold_scores``), and any
parser-score table the store holds (a table whose name starts with ``eval_parse``), passed through.
"""

from __future__ import annotations

import math
from importlib import resources

import duckdb
from scipy.stats import friedmanchisquare

from ..errors import UsageError
from .judge import CONDITION_ORDER, CRITERIA, EXPERIMENTS


def _sql(name: str) -> str:
    return resources.files("wag_cli.eval").joinpath("sql", name).read_text(encoding="utf-8")


def _rows(con: duckdb.DuckDBPyConnection, sql: str, params: list | dict | None = None) -> list[dict]:
    cur = con.execute(sql, params) if params is not None else con.execute(sql)
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def _num(x):
    return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else float(x)


def create_views(con: duckdb.DuckDBPyConnection) -> None:
    """(Re)create the ``eval_report_*`` views in the evaluation database."""
    con.execute(_sql("report_views.sql"))


def friedman(matrix: list[list[float]]) -> dict:
    """Friedman test on an n x k matrix (rows = queries, columns = conditions, values = ranks).

    Returns ``{"n", "k", "statistic", "p_value", "kendall_w", "note"}``; the test needs k >= 3 and
    n >= 2 (``statistic`` etc. None otherwise, ``note`` says why). Kendall's W = chi2 / (n (k - 1)),
    with scipy's tie-corrected chi2.
    """
    n = len(matrix)
    k = len(matrix[0]) if matrix else 0
    out = {"n": n, "k": k, "statistic": None, "p_value": None, "kendall_w": None, "note": None}
    if k < 3 or n < 2:
        out["note"] = f"needs at least 3 conditions and 2 complete queries (have {k} and {n})"
        return out
    if all(len(set(row)) == 1 for row in matrix):
        out["note"] = "every query ties all conditions"
        return out
    res = friedmanchisquare(*[[row[j] for row in matrix] for j in range(k)])
    out.update(statistic=_num(res.statistic), p_value=_num(res.pvalue),
               kendall_w=_num(res.statistic / (n * (k - 1))))
    return out


def overall_matrix(con: duckdb.DuckDBPyConnection, judge: str, experiment: str) -> tuple[list[str], list[str], list[list[float]]]:
    """``(conditions, query_ids, matrix)`` of complete Overall rankings, conditions sorted; only
    queries that rank every condition that appears in the experiment."""
    rows = con.execute(_sql("report_overall_ranks.sql"), {"judge": judge, "experiment": experiment}).fetchall()
    by_query: dict[str, dict[str, float]] = {}
    for qid, cond, rank in rows:
        by_query.setdefault(qid, {})[cond] = rank
    conds = sorted({c for ranks in by_query.values() for c in ranks})
    qids = sorted(q for q, ranks in by_query.items() if len(ranks) == len(conds))
    return conds, qids, [[by_query[q][c] for c in conds] for q in qids]


def judges_in(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Judges with stored rankings (``rubric`` first)."""
    names = [r[0] for r in con.execute("select distinct judge from eval_judgements order by judge").fetchall()]
    return sorted(names, key=lambda j: (j != "rubric", j))


def build_report(con: duckdb.DuckDBPyConnection, judge: str | None = None) -> dict:
    """The whole report as a dict (see the module docstring); creates the views first.

    ``judge``: ``'rubric'`` or ``'model:<name>'`` (default: every stored judge, each in its own
    section). Raises :class:`UsageError` when that judge has no stored rankings.
    """
    create_views(con)
    stored = judges_in(con)
    if judge is not None and judge not in stored:
        have = ", ".join(stored) or "none (run `wag eval judge` first)"
        raise UsageError(f"no rankings by judge {judge!r}; stored judges: {have}")
    sections = []
    for j in [judge] if judge else stored:
        experiments = {}
        for exp in EXPERIMENTS:
            p = {"judge": j, "experiment": exp}
            mean_rank = _rows(con, "select condition, criterion, mean_rank, n_queries from eval_report_mean_rank"
                                   " where judge = $judge and experiment = $experiment order by condition", p)
            if not mean_rank:
                continue
            table: dict[str, dict[str, float]] = {}
            for r in mean_rank:
                table.setdefault(r["condition"], {})[r["criterion"]] = _num(r["mean_rank"])
            conds, qids, matrix = overall_matrix(con, j, exp)
            order = CONDITION_ORDER.get(exp, ())
            shown = sorted(table, key=lambda c: (order.index(c) if c in order else len(order), c))
            experiments[exp] = {
                "conditions": shown,
                "n_queries": max((r["n_queries"] for r in mean_rank if r["criterion"] == "Overall"), default=0),
                "mean_rank": {c: {k: table[c].get(k) for k in CRITERIA} for c in shown},
                "win_rate": {r["condition"]: _num(r["win_rate"]) for r in _rows(
                    con, "select condition, win_rate from eval_report_win_rate"
                         " where judge = $judge and experiment = $experiment order by condition", p)},
                "friedman": friedman(matrix),
                "breakdown": _rows(con, "select dimension, level, condition, mean_rank, win_rate, n_queries"
                                        " from eval_report_breakdown where judge = $judge and experiment = $experiment"
                                        " order by dimension, level, condition", p),
            }
        pj = {"judge": j}
        sections.append({
            "judge": j,
            "label": "rubric (deterministic, offline)" if j == "rubric" else f"model judge {j.split(':', 1)[1]}",
            "experiments": experiments,
            "validity": _rows(con, "select experiment, pass, n_queries, n_valid, n_invalid from eval_report_validity"
                                   " where judge = $judge order by experiment, pass", pj),
            "swap_agreement": _rows(con, "select experiment, criterion, n_pairs, exact_agreement, top_agreement"
                                         " from eval_report_swap_agreement where judge = $judge"
                                         " order by experiment, criterion", pj),
        })
    return {
        "judges": sections,
        "gold_accuracy": _rows(con, "select dimension, level, condition, n, n_correct, accuracy"
                                    " from eval_report_gold_accuracy"
                                    " order by dimension = 'all' desc, dimension, level, condition"),
        "parser": parser_tables(con),
    }


def parser_tables(con: duckdb.DuckDBPyConnection, limit: int = 200) -> dict[str, list[dict]]:
    """Rows of every stored table whose name starts with ``eval_parse`` (parser scores), if any."""
    names = [r[0] for r in con.execute(
        "select table_name from information_schema.tables where table_name like 'eval_parse%'"
        " and table_type = 'BASE TABLE' order by table_name").fetchall()]
    return {n: _rows(con, f'select * from "{n}" limit {int(limit)}') for n in names}
