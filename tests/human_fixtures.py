"""A small evaluation store for the human-evaluation tests (DESIGN.md §10), written by hand: queries,
every condition's answer for two experiments (conditions read from wag_cli.eval.run.EXPERIMENTS, never
listed here), a gold query and a query with a failed condition (neither can be sampled), and rubric
Overall ranks for every answered query."""

from __future__ import annotations

from pathlib import Path

from wag_cli.eval.run import EXPERIMENTS
from wag_cli.eval.store import connect_eval

EXPS = ("main", "exp_l")
QUERIES = [f"q{i:02d}" for i in range(1, 7)]


def conditions(exp: str) -> list[str]:
    return [c for c, _method, _rank_by in EXPERIMENTS[exp]]


def answer_text(exp: str, qid: str, cond: str) -> str:
    """Text that does not name its condition (so a sheet showing it stays anonymous)."""
    i = conditions(exp).index(cond)
    return f"Reply number {i * 7 + 3} for {qid}.\nYour sleep was {6 + i}.{i} h on average."


def rubric_rank(exp: str, qid: str, cond: str) -> int:
    """The rubric judge's Overall rank: conditions rotated by the query number."""
    conds = conditions(exp)
    shift = int(qid[1:]) % len(conds)
    return (conds.index(cond) + shift) % len(conds) + 1


def make_store(path: Path):
    con = connect_eval(path)
    for qid in QUERIES + ["qgold", "qfail"]:
        con.execute("insert into eval_queries (query_id, kind, dataset, subject_id, metrics, reference_day,"
                    " window_days, abnormal_level, category, openness, question) values (?, ?, 'pmdata', 'pmdata:p01',"
                    " ['sleep_duration'], date '2019-12-01', ?, 'high', 'Trend Analysis', 0.5, ?)",
                    [qid, "gold" if qid == "qgold" else "single", None if qid == "q02" else 7,
                     f"How did I sleep before {qid}?"])
    for exp in EXPS:
        for qid in QUERIES + ["qgold", "qfail"]:
            for cond in conditions(exp):
                failed = qid == "qfail" and cond == conditions(exp)[0]
                con.execute("insert into eval_answers (query_id, experiment, condition, answer, source) values"
                            " (?, ?, ?, ?, ?)", [qid, exp, cond, None if failed else answer_text(exp, qid, cond),
                                                 "error" if failed else "offline"])
                if qid in QUERIES:
                    con.execute("insert into eval_judgements (query_id, experiment, judge, pass, criterion, condition,"
                                " rank, valid) values (?, ?, 'rubric', 'rubric', 'Overall', ?, ?, true)",
                                [qid, exp, cond, float(rubric_rank(exp, qid, cond))])
    return con
