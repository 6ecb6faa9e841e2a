"""Answers that reach a conclusion (issue 27; DESIGN.md §11): findings in SQL on planted data, the
verdict first, person-facing text only, activity paired with the following night."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import replace
from datetime import date, timedelta
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from conftest import SHARED_EVAL
from wag_cli.answer.verdict import verdict_lines
from wag_cli.answer.findings import findings_for, from_rows, to_rows
from wag_cli.retrieve import Node, NodeData, Subgraph

REF = date(2020, 3, 31)
BASE_DAYS = [date(2020, 3, 1) + timedelta(days=i) for i in range(24)]          # 03-01 .. 03-24
PERIOD = [date(2020, 3, 25) + timedelta(days=i) for i in range(6)]             # 03-25 .. 03-30
PARTIAL = date(2020, 3, 31)                                                    # only one metric that day
SID = "pmdata:zz_planted"


def _alt(a, b, n):
    return [a if i % 2 == 0 else b for i in range(n)]


PLANTED = {
    # metric: (baseline values, period values)
    "mental_fatigue": (_alt(2, 4, 24), [5, 5, 5, 5, 5, 6]),
    "sleep_score": (_alt(70, 80, 24), [60] * 6),          # fell; own r -0.5: explains more fatigue
    "deep_sleep_duration": (_alt(80, 100, 24), [120] * 6),  # rose; own r -0.4: the other way
    "readiness": (_alt(4, 6, 24), [5] * 6),                  # unchanged
    "mood": (_alt(2, 4, 24), []),                            # no data in the period
    "hrv_rmssd": (_alt(30, 50, 24), [45] * 6),               # own |r| 0.95 over 40 days: same construct
    "total_sleep_duration": (_alt(400, 480, 24), [440] * 6),
    "asleep_duration": (_alt(360, 420, 24), [300] * 6),      # declared the same construct as time in bed
    # bedtimes around midnight, some written the next-day way (1420 = 23:40 counted from the day's own
    # midnight): an arithmetic mean would put the usual bedtime near noon
    "bedtime_start_time": (_alt(-20, 1420, 24), [-10, 1430, -10, 1430, -10, 1430]),
    "steps_taken": (_alt(8000, 10000, 24), [9000] * 6),    # plus 500 on the partial last day
    # never 0 before the period: its 0-minute days are more likely not recorded than real (left out)
    "time_at_home": (_alt(600, 800, 24), [700, 0, 700, 0, 650, 750]),
    # 0 on 6 of 24 earlier days (25 %): a 0 in the period is a real 0 and counts
    "highly_active_time": ([0, 30, 30, 30] * 6, [0, 30, 30, 30, 30, 30]),
}
NEIGHBOURS = {"mental_fatigue": {"sleep_score": (-0.5, 60), "deep_sleep_duration": (-0.4, 60),
                                 "readiness": (0.1, 60), "mood": (-0.6, 60), "hrv_rmssd": (0.95, 40)},
              "total_sleep_duration": {"asleep_duration": (0.5, 60), "bedtime_start_time": (0.1, 60)},
              "steps_taken": {}, "time_at_home": {}, "highly_active_time": {}}


@pytest.fixture(scope="module")
def planted_db(built_db, tmp_path_factory):
    db = tmp_path_factory.mktemp("conclude") / "wag.duckdb"
    shutil.copyfile(built_db, db)
    con = duckdb.connect(str(db))
    rows = []
    for m, (base, period) in PLANTED.items():
        rows += [("pmdata", SID, m, d, float(v), None) for d, v in zip(BASE_DAYS, base)]
        rows += [("pmdata", SID, m, d, float(v), None) for d, v in zip(PERIOD, period)]
    rows.append(("pmdata", SID, "mental_fatigue", PARTIAL, 9.0, None))    # a check-in on a partial day
    rows.append(("pmdata", SID, "steps_taken", PARTIAL, 500.0, None))     # a truncated day's steps
    con.executemany("insert into metric_values values (?, ?, ?, ?, ?, ?)", rows)
    con.close()
    return db


def _node(m: str, role: str, primary: str, r=None, n=None) -> Node:
    return Node(metric_id=m, name=m.replace("_", " ").capitalize(), unit="score", category="Sleep",
                data_kind="numeric", role=role, primary_node=primary, rank=0, reason="", r_s_signed=r, n_s=n,
                data=NodeData(n_window_days=1))


def _subgraph() -> Subgraph:
    nodes = []
    for p, neigh in NEIGHBOURS.items():
        nodes.append(_node(p, "primary", p))
        nodes += [_node(m, "neighbour", p, r, n) for m, (r, n) in neigh.items()]
    return Subgraph(subject_id=SID, method="wag", reference_day=REF, window_days=7, openness=0.8, budget=5, nodes=nodes)


@pytest.fixture(scope="module")
def planted(planted_db):
    con = duckdb.connect(str(planted_db), read_only=True)
    try:
        yield findings_for(con, _subgraph())
    finally:
        con.close()


def _d(metric: str, extra: list[float] = ()) -> float:
    base, period = PLANTED[metric]
    return (np.mean(list(period) + list(extra)) - np.mean(base)) / np.std(base, ddof=1)


def test_findings_match_a_hand_computation(planted):
    f = planted
    # a day with far fewer records (03-31: 2 metrics against the usual 10) is partial; a level such as a
    # check-in keeps it (a truncated recording does not lower it), a daily amount leaves it out
    fx = f[("mental_fatigue", "mental_fatigue")]
    assert fx.d == pytest.approx(_d("mental_fatigue", [9.0]), abs=1e-12)
    assert fx.partial_days == []
    sd = np.std(PLANTED["mental_fatigue"][0], ddof=1)
    assert [(u["day"], u["z"]) for u in fx.unusual_days] == [(PARTIAL, pytest.approx((9 - 3) / sd)),
                                                             (date(2020, 3, 30), pytest.approx((6 - 3) / sd))]
    fs = f[("steps_taken", "steps_taken")]
    assert fs.d == pytest.approx(_d("steps_taken"), abs=1e-12)            # 500 on 03-31 left out
    assert fs.n_mean_days == 6 and [p["day"] for p in fs.partial_days] == [PARTIAL] and fs.unusual_days == []
    verdicts = {m: f[("mental_fatigue", m)].finding for m in NEIGHBOURS["mental_fatigue"]}
    assert verdicts == {"sleep_score": "explains", "deep_sleep_duration": "opposite", "readiness": "unchanged",
                        "mood": "no_data", "hrv_rmssd": "same_construct"}
    assert f[("mental_fatigue", "sleep_score")].d == pytest.approx(_d("sleep_score"), abs=1e-12)
    assert f[("total_sleep_duration", "asleep_duration")].finding == "same_construct"   # declared in the seed


def test_a_zero_where_the_person_is_rarely_at_zero_is_left_out(planted):
    # time at home: 0 on none of the 24 earlier days, so the period's two 0-minute days are probably not
    # recorded: left out of the mean (hand: (700 + 700 + 650 + 750) / 4 = 700) and named as partial
    f = planted[("time_at_home", "time_at_home")]
    assert [p["day"] for p in f.partial_days] == [PERIOD[1], PERIOD[3]]
    assert f.period_mean == pytest.approx(700.0) and f.n_mean_days == 4
    assert f.d == pytest.approx(0.0, abs=1e-12) and f.unusual_days == []
    # exercise: 0 on 25 % of the earlier days, so a 0 in the period is a real 0 and counts
    g = planted[("highly_active_time", "highly_active_time")]
    assert g.partial_days == [] and g.period_mean == pytest.approx(150 / 6) and g.n_mean_days == 6


def test_clock_times_average_on_the_24_hour_circle(planted):
    f = planted[("total_sleep_duration", "bedtime_start_time")]
    assert f.baseline_mean == pytest.approx(-20, abs=1e-9)          # 23:40, not (1420 - 20) / 2 = 11:40
    assert f.period_mean == pytest.approx(-10, abs=1e-9)            # 23:50
    from wag_cli.answer.wording import fmt

    assert fmt(f.period_mean, "minutes from local midnight of the wake-up day") == "23:50 (previous day)"


def test_the_verdict_names_the_period_and_what_explains_the_change(planted):
    sg = _subgraph()
    analysis = {"intent": "lookup", "category": "Exploratory Analysis",
                "period": {"start": "2020-03-25", "end": "2020-03-31", "days": 7, "label": "past week"}}
    lines = verdict_lines(sg, analysis, planted)
    assert lines[0].startswith("From 2020-03-25 to 2020-03-31 (past week), your mental fatigue averaged 5.7, "
                               "above your usual 3 (the 24 days before, +2.7 SD)")
    assert "your steps taken averaged 9,000 over the 6 full days" in lines[0]
    assert "Unusual mental fatigue days (2 SD or more from your usual): 2020-03-31" in " ".join(lines)
    assert "2020-03-31" in [ln for ln in lines if ln.startswith("Left out as partial days")][0]
    why = [ln for ln in lines if ln.startswith("What may help explain it")][0]
    assert "sleep score was lower than usual" in why and "deep sleep" not in why


def test_nothing_unusual_is_said_outright(planted):
    sg = _subgraph()
    sg = replace(sg, nodes=[n for n in sg.nodes if n.primary_node == "total_sleep_duration"])
    analysis = {"intent": "lookup", "category": "Anomaly Detection",
                "period": {"start": "2020-03-25", "end": "2020-03-31", "days": 7}}
    lines = verdict_lines(sg, analysis, planted)
    assert "Nothing unusual in your time in bed (total sleep duration): every day within 2 SD of your usual." in lines


def test_findings_round_trip_through_the_analysis(planted):
    back = from_rows(json.loads(json.dumps(to_rows(planted), default=str)))
    assert back.keys() == planted.keys()
    assert back[("mental_fatigue", "mental_fatigue")].unusual_days[0]["day"] == PARTIAL


def test_a_zero_one_flag_reads_as_a_share_of_days():
    from wag_cli.answer.verdict import _amount
    from wag_cli.answer.findings import Finding

    node = Node(metric_id="mental_fatigue", name="Mental fatigue", unit="score", category="Mental",
                data_kind="numeric", role="primary", primary_node="mental_fatigue", rank=0, reason="",
                data=NodeData(daily=[{"day": d, "value": v} for d, v in zip(PERIOD, [1, 0, 1, 1, 0, 0])]))
    f = Finding("mental_fatigue", "mental_fatigue", "primary", n_window_days=6, n_full_days=6, period_mean=0.5)
    assert _amount(node, f, None, False, 7) == "was reported on 50% of the days with a check-in"


def test_activity_is_paired_with_the_following_night(built_db):
    """The next-night correlation equals pandas shift(-1) + scipy spearmanr on days <= t."""
    from wag_cli.db import fetch_dicts
    from wag_cli.retrieve import _sql

    con = duckdb.connect(str(built_db), read_only=True)
    try:
        t = date(2020, 3, 31)
        got = fetch_dicts(con, _sql("pair_next_night.sql"), {"subject": "pmdata:p01", "activity": "active_time",
                                                             "sleep": "asleep_duration", "ref_day": t, "min_samples": 10})[0]
        df = con.execute("select day, metric_id, value from metric_values where subject_id = 'pmdata:p01' "
                         "and metric_id in ('active_time', 'asleep_duration') and day <= ?", [t]).df()
    finally:
        con.close()
    wide = df.pivot(index="day", columns="metric_id", values="value")
    wide.index = pd.to_datetime(wide.index)
    wide = wide.reindex(pd.date_range(wide.index.min(), wide.index.max()))
    pairs = pd.DataFrame({"a": wide["active_time"], "s": wide["asleep_duration"].shift(-1)}).dropna()
    rho = stats.spearmanr(pairs["a"], pairs["s"]).statistic
    assert got["n"] == len(pairs) and got["spearman_rho"] == pytest.approx(rho, abs=1e-9)


# ---- over real questions ----

VERDICT = re.compile(r"\b(above|below|about the same|no \w+ data|you have no|tended to|not clearly different|"
                     r"rose|fell|no clear|higher|lower|later|earlier|no personal correlation|too few|was|logged)\b")
PERIOD_WORDS = re.compile(r"\b(20\d\d-\d\d-\d\d|up to)\b")


def _subject_for(con, metrics: list[str]) -> str | None:
    row = con.execute("select subject_id from metric_values where metric_id = ? group by 1 order by count(*) desc limit 1",
                      [metrics[0]]).fetchone()
    return row[0] if row else None


def test_every_eval_question_opens_with_period_and_verdict(built_db, monkeypatch):
    from wag_cli.pipeline import answer_question

    monkeypatch.setenv("WAG_DB", str(built_db))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    questions = [json.loads(x) for x in (SHARED_EVAL / "dev_questions.jsonl").read_text().splitlines() if x.strip()]
    questions += [{"q": "How did I sleep this week?", "metrics": ["total_sleep_duration"]},
                  {"q": "Why am I tired despite sleeping 8 hours?", "metrics": ["mental_fatigue"]}]
    con = duckdb.connect(str(built_db), read_only=True)
    subjects = [_subject_for(con, q["metrics"]) for q in questions]
    con.close()
    checked = 0
    for q, sid in zip(questions, subjects):
        if sid is None:
            continue
        res = answer_question(q["q"], sid, offline=True)
        first = re.split(r"(?<=\.)\s", res.answer.text.strip(), maxsplit=1)[0]
        assert PERIOD_WORDS.search(first) and VERDICT.search(first), (q["q"], sid, first)
        checked += 1
    assert checked >= 25


ANALYST = re.compile(r"staging|staged|\braw\b|sentinel|FORMATS|DESIGN\.md|Doryab|barnett|RAPIDS|one-hot|\.json|\.csv|"
                     r"row D|timeInBed|->|_rog|_hometime", re.I)


def test_no_analyst_vocabulary_in_any_answer(built_db):
    """Every metric with data, in every dataset: the offline answer holds no analyst text."""
    from wag_cli.pipeline import parse_question
    from wag_cli.analysis import question_analysis
    from wag_cli.answer.offline import offline_answer
    from wag_cli.catalog import load_catalog
    from wag_cli.retrieve import retrieve

    con = duckdb.connect(str(built_db), read_only=True)
    try:
        catalog = load_catalog(con)
        pairs = con.execute("""
            select dataset, metric_id, arg_max(subject_id, n) as subject_id, max(last_day) as last_day
            from (select dataset, metric_id, subject_id, count(*) as n, max(day) as last_day
                  from metric_values group by all) group by all order by all""").fetchall()
        assert len(pairs) >= 80
        for dataset, m, sid, last in pairs:
            q = f"How was my {catalog[m].name} this week?"
            parsed = replace(parse_question(q, last, catalog=catalog), metrics=[m], reference_day=last)
            sg = retrieve(con, subject_id=sid, metrics=[m], reference_day=last, window_days=parsed.window_days,
                          openness=0.6, method="wag", catalog=catalog)
            text = offline_answer(q, sg, question_analysis(con, parsed, sg, catalog, metrics=[m])).text
            bad = ANALYST.search(text)
            assert bad is None, (dataset, m, bad.group(), text[max(0, bad.start() - 80): bad.end() + 80])
    finally:
        con.close()


def test_every_tied_extreme_day_is_named():
    """Nine days tied at the minimum are all counted (DESIGN.md §11), not only the first."""
    from wag_cli.answer.text import describe_node_data

    days = [date(2020, 3, 1) + timedelta(days=i) for i in range(10)]
    values = [43.0] * 9 + [50.0]
    node = Node(metric_id="resting_heart_rate", name="Resting heart rate", unit="bpm", category="Physiological",
                data_kind="numeric", role="primary", primary_node="resting_heart_rate", rank=0, reason="",
                data=NodeData(n_window_days=10, window_mean=float(np.mean(values)), window_min=43.0, window_max=50.0,
                              window_min_day=days[0], window_max_day=days[9],
                              daily=[{"day": d, "value": v} for d, v in zip(days, values)]))
    sg = Subgraph(subject_id="pmdata:x", method="wag", reference_day=days[-1], window_days=10, openness=0.5,
                  budget=0, nodes=[node])
    line = describe_node_data(node, sg)[0]
    assert "lowest 43 bpm on 9 days (2020-03-01 … 2020-03-09)" in line
    assert "highest 50 bpm on 2020-03-10" in line
