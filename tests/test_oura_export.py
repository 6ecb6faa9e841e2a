"""A person's Oura export (issue 28, DESIGN.md §2 "A person's own export"): the IFH Oura rules on the
API v2 documents (JSON) and the app's CSV export of the same fields.

The test writes one miniature export twice: person ``ana`` as API v2 JSON documents ({"data": [...]}),
person ``ben`` as CSV files the way Oura's own export writes them ("App Data/sleepmodel.csv",
dailysleep.csv, DailyReadiness.csv, dailyspo2.csv: ';'-delimited, the nested spo2_percentage as its
unquoted JSON text) and one with the API name, ',' and quoted cells (daily_activity.csv).
Values by hand:

* The night from 2024-03-01 23:10 to 2024-03-02 06:40 (+01:00) lands on the wake-up day 2024-03-02 (its
  Oura `day` label says 03-01 and is not used): time in bed 27,000 s = 450 min, asleep 24,600 s = 410
  min, deep 5,400 s = 90, REM 6,600 s = 110, light 12,600 s = 210, awake 2,400 s = 40, latency 600 s =
  10 min; bedtime 23:10 = -50 min and wake-up 06:40 = 400 min from that day's midnight; lowest HR 48 is
  the resting HR; HRV 62 ms. A nap ending the same afternoon (1,800 s) and a longer 'deleted' period
  are not the main sleep.
* The next night ends 2024-03-03 07:00 at -04:00 (travelled): the day is the local 03-03 (UTC it is
  11:00, same day; its start 22:30 local on 03-02 is -90 min); lowest_heart_rate 0 is "no reading".
* daily_activity 2024-03-02: 9,876 steps; low/medium/high 10,800/2,400/1,200 s = 180/40/20 min, active
  240 min; worn 73,200 s = 1,220 min. 2024-03-03 has no worn second: no steps row.
* daily_sleep score 81, daily_readiness score 77 and temperature_deviation -0.21, daily_spo2 96.5 %.
* Malformed objects go to raw_rejected with file and locator: ana's sleep data[4] (bedtime_end
  'yesterday'), ben's dailysleep.csv line 3 (score 'abc').
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from conftest import run_dbt

NIGHT = {"id": "n1", "type": "long_sleep", "day": "2024-03-01",
         "bedtime_start": "2024-03-01T23:10:00+01:00", "bedtime_end": "2024-03-02T06:40:00+01:00",
         "time_in_bed": 27000, "total_sleep_duration": 24600, "awake_time": 2400, "light_sleep_duration": 12600,
         "deep_sleep_duration": 5400, "rem_sleep_duration": 6600, "latency": 600, "efficiency": 91,
         "lowest_heart_rate": 48, "average_heart_rate": 55.5, "average_hrv": 62, "average_breath": 14.5}
NAP = {**NIGHT, "id": "n2", "type": "late_nap", "day": "2024-03-02", "bedtime_start": "2024-03-02T15:00:00+01:00",
       "bedtime_end": "2024-03-02T15:30:00+01:00", "time_in_bed": 1800, "total_sleep_duration": 1500,
       "lowest_heart_rate": 52}
DELETED = {**NIGHT, "id": "n3", "type": "deleted", "time_in_bed": 40000, "lowest_heart_rate": 40}
TRAVEL = {**NIGHT, "id": "n4", "day": "2024-03-02", "bedtime_start": "2024-03-02T22:30:00-04:00",
          "bedtime_end": "2024-03-03T07:00:00-04:00", "time_in_bed": 30600, "lowest_heart_rate": 0}
BROKEN = {**NIGHT, "id": "n5", "bedtime_end": "yesterday"}
SLEEPS = [NIGHT, NAP, DELETED, TRAVEL, BROKEN]

DAILY_SLEEP = [{"id": "d1", "day": "2024-03-02", "score": 81, "timestamp": "2024-03-02T00:00:00+01:00"}]
ACTIVITY = [{"id": "a1", "day": "2024-03-02", "steps": 9876, "equivalent_walking_distance": 7500,
             "total_calories": 2400, "active_calories": 500, "high_activity_time": 1200,
             "medium_activity_time": 2400, "low_activity_time": 10800, "sedentary_time": 30000,
             "resting_time": 28800, "non_wear_time": 13200, "timestamp": "2024-03-02T04:00:00+01:00"},
            {"id": "a2", "day": "2024-03-03", "steps": 0, "equivalent_walking_distance": 0, "total_calories": 0,
             "active_calories": 0, "high_activity_time": 0, "medium_activity_time": 0, "low_activity_time": 0,
             "sedentary_time": 0, "resting_time": 0, "non_wear_time": 86400,
             "timestamp": "2024-03-03T04:00:00-04:00"}]
READINESS = [{"id": "r1", "day": "2024-03-02", "score": 77, "temperature_deviation": -0.21,
              "timestamp": "2024-03-02T00:00:00+01:00"}]
SPO2 = [{"id": "s1", "day": "2024-03-02", "spo2_percentage": {"average": 96.5}}]

EXPECTED = {  # catalog metric -> {day: value}
    "total_sleep_duration": {"2024-03-02": 450.0, "2024-03-03": 510.0},
    "asleep_duration": {"2024-03-02": 410.0, "2024-03-03": 410.0},
    "deep_sleep_duration": {"2024-03-02": 90.0, "2024-03-03": 90.0},
    "rem_sleep_duration": {"2024-03-02": 110.0, "2024-03-03": 110.0},
    "light_sleep_duration": {"2024-03-02": 210.0, "2024-03-03": 210.0},
    "wake_after_sleep_onset": {"2024-03-02": 40.0, "2024-03-03": 40.0},
    "sleep_onset_latency": {"2024-03-02": 10.0, "2024-03-03": 10.0},
    "bedtime_start_time": {"2024-03-02": -50.0, "2024-03-03": -90.0},
    "bedtime_end_time": {"2024-03-02": 400.0, "2024-03-03": 420.0},
    "resting_heart_rate": {"2024-03-02": 48.0},
    "hrv_rmssd": {"2024-03-02": 62.0, "2024-03-03": 62.0},
    "sleep_score": {"2024-03-02": 81.0},
    "steps_taken": {"2024-03-02": 9876.0},
    "distance_traveled": {"2024-03-02": 7500.0},
    "active_time": {"2024-03-02": 240.0},
    "lightly_active_time": {"2024-03-02": 180.0},
    "temperature_variation": {"2024-03-02": -0.21},
    "blood_oxygen_saturation": {"2024-03-02": 96.5},
}


def _csv(rows: list[dict], delim: str, quote: bool) -> str:
    cols = list(rows[0])
    def cell(v):
        text = json.dumps(v) if isinstance(v, dict) else str(v)
        return '"' + text.replace('"', '""') + '"' if quote and (delim in text or '"' in text) else text
    return "\n".join([delim.join(cols)] + [delim.join(cell(r.get(c, "")) for c in cols) for r in rows]) + "\n"


@pytest.fixture(scope="module")
def oura_db(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("oura")
    data = tmp / "data"
    files = {"sleep": SLEEPS, "daily_sleep": DAILY_SLEEP, "daily_activity": ACTIVITY,
             "daily_readiness": READINESS, "daily_spo2": SPO2}
    ana = data / "oura" / "ana"
    ana.mkdir(parents=True)
    for name, rows in files.items():
        (ana / f"{name}.json").write_text(json.dumps({"data": rows, "next_token": None}))
    ben = data / "oura" / "ben" / "App Data"             # any depth under oura/<person>/
    ben.mkdir(parents=True)
    csv_files = {**files, "sleep": SLEEPS[:4],
                 "daily_sleep": DAILY_SLEEP + [{"id": "d2", "day": "2024-03-03", "score": "abc", "timestamp": ""}]}
    export_names = {"sleep": "sleepmodel", "daily_sleep": "dailysleep", "daily_readiness": "DailyReadiness",
                    "daily_spo2": "dailyspo2"}
    for name, rows in csv_files.items():
        if name in export_names:
            (ben / f"{export_names[name]}.csv").write_text(_csv(rows, ";", quote=False))
        else:
            (ben / f"{name}.csv").write_text(_csv(rows, ",", quote=True))
    db = tmp / "wag.duckdb"
    res = run_dbt(["build"], db=db, data_dir=data, target=tmp / "target")
    assert res.success, res.result
    return db


def _query(db: Path, sql: str, params=()):
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, list(params)).fetchall()
    finally:
        con.close()


@pytest.mark.parametrize("person", ["ana", "ben"])
def test_each_file_lands_on_its_day(oura_db, person):
    for metric, expected in EXPECTED.items():
        got = {str(d): round(v, 6) for d, v in _query(
            oura_db, "select day, value from metric_values where subject_id = ? and metric_id = ? order by day",
            [f"oura:{person}", metric])}
        assert got == expected, (person, metric)


@pytest.mark.parametrize("person", ["ana", "ben"])
def test_readiness_score_and_non_wear(oura_db, person):
    rows = dict(((r, str(d)), v) for r, d, v in _query(
        oura_db, "select raw_field, day, value from int_oura__values_unpivoted where subject_id = ?", [f"oura:{person}"]))
    assert rows[("daily_readiness.score", "2024-03-02")] == 77.0
    assert rows[("daily_activity.non_wear_time", "2024-03-03")] == 86400.0
    assert ("daily_activity.steps", "2024-03-03") not in rows      # not worn: no activity rows


def test_main_sleep_choice(oura_db):
    rows = _query(oura_db, "select subject_id, day, sleep_id, n_periods from int_oura__sleep_main_chosen "
                           "order by subject_id, day")
    assert [(s, str(d), i, n) for s, d, i, n in rows] == [
        ("oura:ana", "2024-03-02", "n1", 2), ("oura:ana", "2024-03-03", "n4", 1),
        ("oura:ben", "2024-03-02", "n1", 2), ("oura:ben", "2024-03-03", "n4", 1)]


def test_wear_evidence(oura_db):
    rows = _query(oura_db, "select day, wear_minutes, is_worn from int_wear_days where subject_id = 'oura:ana' order by day")
    assert [(str(d), m, w) for d, m, w in rows] == [("2024-03-02", 1220.0, True), ("2024-03-03", 0.0, False)]


def test_malformed_objects_quarantined(oura_db):
    rows = _query(oura_db, "select file, locator, reason from raw_rejected where dataset = 'oura' order by file, locator")
    assert ("oura/ana/sleep.json", "data[4] (bedtime_end yesterday)",
            "bedtime_end is not a timestamp (YYYY-MM-DDTHH:MM:SS+HH:MM)") in rows
    assert ("oura/ben/App Data/dailysleep.csv", "line 3 (day 2024-03-03)", "score is not a number") in rows
    assert len(rows) == 2, rows


def test_no_oura_folder_builds_empty(tmp_path):
    data = tmp_path / "data" / "fitbit" / "kim"
    data.mkdir(parents=True)
    (data / "steps-2024-03-01.json").write_text(json.dumps([{"dateTime": "03/01/24 08:00:00", "value": "5"}]))
    db = tmp_path / "wag.duckdb"
    res = run_dbt(["build", "--select", "+int_oura__values_unpivoted"], db=db, data_dir=tmp_path / "data",
                  target=tmp_path / "target")
    assert res.success, res.result
    assert _query(db, "select count(*) from int_oura__values_unpivoted") == [(0,)]
