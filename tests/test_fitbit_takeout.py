"""Fitbit account export (Google Takeout) through the PMData Fitbit logic (issue 28, DESIGN.md §2).

The same minutes are written twice by this test: in PMData's layout (pmdata/p99/fitbit/steps.json,
ISO timestamps) and as a person's Takeout export (fitbit/kim/Takeout/Fitbit/Global Export Data/,
one file per period, month-first 'MM/DD/YY HH:MM:SS'). By hand: 2024-03-01 = 100 + 50 (the repeated
08:00 minute once) = 150 steps; 2024-03-02 = 30 (23:59, in the next period's file); 2024-03-03 has
0 steps and no heart-rate minutes -> no-wear, no row. Distance 03-01 = 7,000 + 3,000 cm = 100 m.
Both worn days have 700 heart-rate minutes (>= 10 h).
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from conftest import run_dbt

MINUTES = [("2024-03-01 08:00:00", 100, 7000), ("2024-03-01 08:01:00", 50, 3000), ("2024-03-01 08:00:00", 100, 7000),
           ("2024-03-02 23:59:00", 30, 2000), ("2024-03-03 10:00:00", 0, 0)]
ZONES = ["2024-03-01", "2024-03-02"]


def mdy(ts: str) -> str:
    y, m, d = ts[:10].split("-")
    return f"{m}/{d}/{y[2:]}{ts[10:]}"


def zone(day: str, fmt) -> dict:
    return {"dateTime": fmt(day + " 00:00:00"),
            "value": {"valuesInZones": {"BELOW_DEFAULT_ZONE_1": 600.0, "IN_DEFAULT_ZONE_1": 100.0,
                                        "IN_DEFAULT_ZONE_2": 0.0, "IN_DEFAULT_ZONE_3": 0.0}}}


@pytest.fixture(scope="module")
def fitbit_db(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fitbit")
    data = tmp / "data"
    pm = data / "pmdata" / "p99" / "fitbit"
    pm.mkdir(parents=True)
    (pm / "steps.json").write_text(json.dumps([{"dateTime": t, "value": str(s)} for t, s, _ in MINUTES]))
    (pm / "distance.json").write_text(json.dumps([{"dateTime": t, "value": str(c)} for t, _, c in MINUTES]))
    (pm / "time_in_heart_rate_zones.json").write_text(json.dumps([zone(d, lambda x: x) for d in ZONES]))
    tk = data / "fitbit" / "kim" / "Takeout" / "Fitbit" / "Global Export Data"
    tk.mkdir(parents=True)
    periods = {"2024-03-01": MINUTES[:3], "2024-03-02": MINUTES[3:]}
    for start, rows in periods.items():
        (tk / f"steps-{start}.json").write_text(json.dumps([{"dateTime": mdy(t), "value": str(s)} for t, s, _ in rows]))
        (tk / f"distance-{start}.json").write_text(json.dumps([{"dateTime": mdy(t), "value": str(c)} for t, _, c in rows]))
    for d in ZONES:
        (tk / f"time_in_heart_rate_zones-{d}.json").write_text(json.dumps([zone(d, mdy)]))
    db = tmp / "wag.duckdb"
    res = run_dbt(["build"], db=db, data_dir=data, target=tmp / "target")
    assert res.success, res.result
    return db


def _values(db: Path, subject: str, metric: str) -> dict:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {str(d): v for d, v in con.execute(
            "select day, value from metric_values where subject_id = ? and metric_id = ? order by day",
            [subject, metric]).fetchall()}
    finally:
        con.close()


def test_takeout_equals_pmdata_layout(fitbit_db):
    for metric, expected in (("steps_taken", {"2024-03-01": 150.0, "2024-03-02": 30.0}),
                             ("distance_traveled", {"2024-03-01": 100.0, "2024-03-02": 20.0})):
        assert _values(fitbit_db, "fitbit:kim", metric) == expected
        assert _values(fitbit_db, "pmdata:p99", metric) == expected


def test_takeout_wear_evidence(fitbit_db):
    con = duckdb.connect(str(fitbit_db), read_only=True)
    try:
        rows = con.execute("select day, wear_minutes, is_worn from int_wear_days where subject_id = 'fitbit:kim' "
                           "order by day").fetchall()
    finally:
        con.close()
    assert [(str(d), m, w) for d, m, w in rows] == [("2024-03-01", 700.0, True), ("2024-03-02", 700.0, True)]
