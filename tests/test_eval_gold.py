"""The gold track (DESIGN.md §10): the scorer on hand-written answers with known numbers, and every
gold value built on the real excerpts equal to an independent pandas / scipy computation from
metric_values."""

from __future__ import annotations

from datetime import date, timedelta

import duckdb
import pandas as pd
import pytest
from scipy.stats import spearmanr

from wag_cli.eval.gold import build_gold, numbers_in, score_answer, tolerance


def _q(kind, value, *, days=(), window=7, ref=date(2020, 1, 14), first_day="2019-12-01"):
    return {"gold_kind": kind, "gold_value": value, "reference_day": ref, "window_days": window,
            "gold_detail": {"days": list(days), "first_day": first_day}}


@pytest.mark.parametrize("kind, expected, answer, correct", [
    ("mean", 7532.4, "Over the 7 days ending 2020-01-14 you averaged 7,532 steps a day.", True),
    ("mean", 7532.4, "Your average was about 7,000 steps (range 5,100 to 9,800).", False),
    ("mean", 7532.4, "Your average was 7,607 steps.", True),          # 1 % of 7532.4 = 75.3
    ("mean", 7532.4, "Your average was 7,610 steps.", False),
    ("mean", 62.35, "Resting heart rate: average 62.3 bpm over 6 of 7 days.", True),   # display rounding
    ("mean", 0.873, "Efficiency index averaged 0.87.", True),
    ("mean", 0.873, "Efficiency index averaged 0.85.", False),
    ("mean", -30.0, "Mean change \u221230.0 minutes.", True),          # Unicode minus
    ("count_days", 5.0, "You have data on 5 of the 7 days.", True),
    ("count_days", 6.0, "You have data on 5 of the 7 days.", False),
    ("count_days", 14.0, "On 2020-01-14 ... 12 days.", False),         # the date's 14 is not a count
    ("spearman", 0.53, "Your steps and sleep: Spearman rho +0.53 over 30 days.", True),
    ("spearman", -0.41, "They move in opposite directions (rho -0.41).", True),
    ("spearman", 0.53, "rho 0.60 over 30 days", False),
    ("spearman", 0.53, "", False),
])
def test_numbers_scored_with_stated_tolerance(kind, expected, answer, correct):
    assert score_answer(_q(kind, expected), answer)["correct"] is correct


def test_tolerance_rule():
    assert tolerance("mean", 7532.4) == pytest.approx(75.324)
    assert tolerance("mean", 20.0) == pytest.approx(0.2)      # 1 % beats the 0.05 display rounding
    assert tolerance("mean", 3.0) == pytest.approx(0.05)      # display rounding beats 1 %
    assert tolerance("mean", 0.873) == pytest.approx(0.00873)
    assert tolerance("count_days", 12) == 0.0
    assert tolerance("spearman", 0.2) == pytest.approx(0.005)
    assert numbers_in("2020-01-15 at 07:30: 1,234.5 and -2") == [1234.5, -2.0]


def test_extreme_day_scoring():
    q = _q("max_day", 12000.0, days=["2020-01-10"])
    assert score_answer(q, "Your highest day was 2020-01-10 (12,000 steps).")["correct"]
    assert not score_answer(q, "Your highest day was 2020-01-11.")["correct"]
    listing = ", ".join((date(2020, 1, 8) + timedelta(days=i)).isoformat() for i in range(7))
    assert not score_answer(q, f"Days: {listing}.")["correct"]       # naming the whole window is no answer
    # days of another metric in another sentence do not count against the answer
    assert score_answer(q, f"Steps peaked on 2020-01-10.\nSleep on {listing}.")["correct"]
    tied = _q("min_day", 1.0, days=["2020-01-09", "2020-01-12"])
    assert score_answer(tied, "Lowest on 2020-01-12.")["correct"]   # any tied day counts
    # a day outside the window is not counted as named
    assert score_answer(q, "In the 7 days ending 2020-01-14 the top was 2020-01-10; last month 2019-12-20.")["correct"]


def test_gold_values_equal_pandas_and_scipy(built_db):
    from wag_cli.catalog import load_catalog
    from wag_cli.eval.tuples import load_tuples

    con = duckdb.connect(str(built_db), read_only=True)
    try:
        tuples = load_tuples(con)
        rows = build_gold(con, tuples, n=25, seed=42, catalog=load_catalog(con))
        mv = con.execute("select subject_id, metric_id, day, value from metric_values where value is not null").df()
    finally:
        con.close()
    assert {r["gold_kind"] for r in rows} == {"mean", "count_days", "max_day", "min_day", "spearman"}
    mv["day"] = pd.to_datetime(mv["day"])
    for r in rows:
        ref = pd.Timestamp(r["reference_day"])
        sel = (mv["subject_id"] == r["subject_id"]) & (mv["day"] <= ref)
        if r["window_days"] is not None:
            sel &= mv["day"] >= ref - pd.Timedelta(days=r["window_days"] - 1)
        win = mv[sel]
        if r["gold_kind"] == "spearman":
            x = win[win["metric_id"] == r["metrics"][0]].set_index("day")["value"]
            y = win[win["metric_id"] == r["metrics"][1]].set_index("day")["value"]
            both = pd.concat([x, y], axis=1, join="inner")
            assert len(both) >= 10
            assert r["gold_value"] == pytest.approx(spearmanr(both.iloc[:, 0], both.iloc[:, 1]).statistic, abs=1e-12)
            continue
        s = win[win["metric_id"] == r["metrics"][0]].set_index("day")["value"]
        if r["gold_kind"] == "mean":
            assert r["gold_value"] == pytest.approx(s.mean(), rel=1e-12)
        elif r["gold_kind"] == "count_days":
            assert r["gold_value"] == len(s)
        else:
            ext = s.max() if r["gold_kind"] == "max_day" else s.min()
            assert r["gold_value"] == ext
            assert r["gold_detail"]["days"] == [d.date().isoformat() for d in s[s == ext].index.sort_values()]
