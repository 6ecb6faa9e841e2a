"""Window statistics state their coverage and are NULL below min_window_coverage (issue 9 item 7).

The warehouse is a copy of the session's built warehouse (its table macros as every build creates
them) whose metric_values rows are replaced by a series written by the test.
"""

from __future__ import annotations

import shutil
from datetime import date, timedelta


import duckdb
import pytest

REF = date(2020, 3, 31)


@pytest.fixture(scope="module")
def con(built_db, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("coverage")
    db = tmp / "wag.duckdb"
    shutil.copy(built_db, db)
    c = duckdb.connect(str(db))
    c.execute("delete from metric_values")
    rows = []
    for i in range(90):                        # daily metric, observed every day up to 30 days before REF,
        d = REF - timedelta(days=89 - i)       # then only on REF itself
        if d <= REF - timedelta(days=30) or d == REF:
            rows.append(("x", "x:s1", "daily_m", d, float(i % 7), None))
    for i in range(0, 90, 7):                  # weekly survey: every 7th day, all the way to REF
        rows.append(("x", "x:s1", "weekly_m", REF - timedelta(days=i), float(i % 5), None))
    for i in range(20):                        # a metric seen every day of the last 20
        rows.append(("x", "x:s1", "recent_m", REF - timedelta(days=i), float(i), None))
    c.executemany("insert into metric_values (dataset, subject_id, metric_id, day, value, value_text) "
                  "values (?, ?, ?, ?, ?, ?)", rows)
    c.close()
    c = duckdb.connect(str(db), read_only=True)
    yield c
    c.close()


def _window(con, days, **named):
    args = "".join(f", {k} := {v}" for k, v in named.items())
    cur = con.execute(f"select * from wag_node_window('x:s1', DATE '{REF}', {days}{args}) order by metric_id")
    cols = [d[0] for d in cur.description]
    return {r[0]: dict(zip(cols, r)) for r in cur.fetchall()}


def test_one_day_in_thirty_is_not_a_mean(con):
    w = _window(con, 30)["daily_m"]
    assert w["n_window_days"] == 1 and w["n_window_calendar_days"] == 30
    assert w["window_coverage"] == pytest.approx(1 / 30)
    # cadence over the history: 61 days with data in 90 calendar days
    assert w["expected_window_days"] == pytest.approx(30 * 61 / 90)
    assert w["window_coverage_vs_usual"] == pytest.approx(1 / (30 * 61 / 90))
    for col in ("window_mean", "window_dev_sd", "window_min", "window_max", "zeta"):
        assert w[col] is None, col
    assert len(w["daily"]) == 1                  # the observation itself is still reported
    assert w["usual_mean"] is not None


def test_weekly_cadence_is_full_coverage(con):
    w = _window(con, 14)["weekly_m"]
    # 13 answers in the 85 days from the first (REF - 84) to REF: 14 days expect 14 * 13 / 85 = 2.14
    assert w["n_window_days"] == 2 and w["expected_window_days"] == pytest.approx(14 * 13 / 85)
    assert w["window_coverage"] == pytest.approx(2 / 14)                      # low on the calendar ...
    assert w["window_coverage_vs_usual"] == pytest.approx(2 / (14 * 13 / 85))  # ... full for its cadence
    assert w["window_mean"] == pytest.approx((0.0 + 2.0) / 2)   # days REF (i=0) and REF-7 (i=7 -> 2)


def test_threshold_is_the_named_argument(con):
    w = _window(con, 30)["recent_m"]
    # 20 days with data, cadence 1 per day since its first day: 20 of 30 expected
    assert w["window_coverage_vs_usual"] == pytest.approx(20 / 30)
    assert w["window_mean"] == pytest.approx(sum(range(20)) / 20)             # 0.67 >= 0.5 (default)
    assert _window(con, 30, min_coverage=0.7)["recent_m"]["window_mean"] is None
    assert _window(con, 7)["daily_m"]["window_mean"] is None                  # 1 of ~4.7 expected
    assert _window(con, 7, min_coverage=0.2)["daily_m"]["window_mean"] == 89 % 7


def test_window_extremes_name_their_days(con):
    """window_min_day / window_max_day: the day of the window's lowest / highest value, the earliest of
    tied days (daily_m repeats 0..6, so every extreme is tied), computed here with pandas."""
    w = _window(con, 90)
    df = con.execute("select metric_id, day, value from metric_values where subject_id = 'x:s1' "
                     "and day > ? and day <= ?", [REF - timedelta(days=90), REF]).df()
    # recent_m has 20 of the 90 days it is expected on: an uncovered window names no extremes either
    assert w["recent_m"]["window_min_day"] is None and w["recent_m"]["window_max"] is None
    for metric in ("daily_m", "weekly_m"):
        s = df[df.metric_id == metric].sort_values("day")
        lo = s[s.value == s.value.min()].day.min().date()
        hi = s[s.value == s.value.max()].day.min().date()
        assert (w[metric]["window_min_day"], w[metric]["window_max_day"]) == (lo, hi), metric
        assert w[metric]["window_min"] == s.value.min() and w[metric]["window_max"] == s.value.max()
