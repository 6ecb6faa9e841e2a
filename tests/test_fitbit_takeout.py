"""Fitbit account export (Google Takeout) through the PMData Fitbit logic (issue 28, DESIGN.md §2).

The same minutes are written twice by this test: in PMData's layout (pmdata/p99/fitbit/steps.json,
ISO timestamps) and as a person's Takeout export (fitbit/kim/Takeout/Fitbit/Global Export Data/,
one file per period, month-first 'MM/DD/YY HH:MM:SS'). By hand: 2024-03-01 = 100 + 50 (the repeated
08:00 minute once) = 150 steps; 2024-03-02 = 30 (23:59, in the next period's file); 2024-03-03 has
0 steps and no heart-rate minutes -> no-wear, no row. Distance 03-01 = 7,000 + 3,000 cm = 100 m.
Both worn days have 700 heart-rate minutes (>= 10 h).

The other files Takeout holds in PMData's shapes (sleep logs, resting heart rate, the four activity-level
minute files, exercise) are written the same two ways from one set of records (SLEEP_LOGS, RHR,
LEVELS, BOUTS). By hand: the main sleep 23:10-06:40 lands on 2024-03-02 (dateOfSleep) with 400 min
asleep, 450 in bed, bedtime -50 and wake-up 400 min from that midnight; asleep epochs 23:20-06:00
(800 x 30 s) put the asleep midpoint 400 x 30 s after 23:20 = 02:40 = 210 min after 23:10; the log
repeated in the next period's file counts once and the nap is not the main sleep. Resting HR 57.5 on
03-01, Fitbit's 0 on 03-02 is no estimate, 58 on 03-03. Active time 03-01 = 200 + 30 + 20 = 250
min; 03-02 (1,440 sedentary, nothing active) is not worn: no row. Exercise 03-01:
'Walk (22 min); Run (24 min)', VO2 max 47.5.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import duckdb
import pytest

from conftest import run_dbt

MINUTES = [("2024-03-01 08:00:00", 100, 7000), ("2024-03-01 08:01:00", 50, 3000), ("2024-03-01 08:00:00", 100, 7000),
           ("2024-03-02 23:59:00", 30, 2000), ("2024-03-03 10:00:00", 0, 0)]
ZONES = ["2024-03-01", "2024-03-02"]

MAIN_LOG = {"logId": 1001, "dateOfSleep": "2024-03-02", "startTime": "2024-03-01T23:10:00.000",
            "endTime": "2024-03-02T06:40:00.000", "duration": 27000000, "minutesToFallAsleep": 0,
            "minutesAsleep": 400, "minutesAwake": 50, "minutesAfterWakeup": 0, "timeInBed": 450, "efficiency": 93,
            "type": "stages", "infoCode": 0, "mainSleep": True,
            "levels": {"summary": {"deep": {"count": 3, "minutes": 80, "thirtyDayAvgMinutes": 0},
                                   "light": {"count": 20, "minutes": 220, "thirtyDayAvgMinutes": 0},
                                   "rem": {"count": 4, "minutes": 100, "thirtyDayAvgMinutes": 0},
                                   "wake": {"count": 2, "minutes": 50, "thirtyDayAvgMinutes": 0}},
                       "data": [{"dateTime": "2024-03-01T23:10:00.000", "level": "wake", "seconds": 600},
                                {"dateTime": "2024-03-01T23:20:00.000", "level": "light", "seconds": 24000},
                                {"dateTime": "2024-03-02T06:00:00.000", "level": "wake", "seconds": 2400}],
                       "shortData": []}}
NAP_LOG = {**MAIN_LOG, "logId": 1002, "startTime": "2024-03-02T14:00:00.000", "endTime": "2024-03-02T14:30:00.000",
           "timeInBed": 30, "minutesAsleep": 28, "mainSleep": False, "type": "classic", "levels": {}}
SLEEP_LOGS = {"2024-02-15": [MAIN_LOG], "2024-03-02": [MAIN_LOG, NAP_LOG]}   # Takeout period -> logs
RHR = [("2024-03-01", 57.5), ("2024-03-02", 0.0), ("2024-03-03", 58.0)]
LEVELS = {"sedentary": [600, 1440, 700], "lightly_active": [200, 0, 100], "moderately_active": [30, 0, 10],
          "very_active": [20, 0, 5]}                                           # per day of RHR
BOUTS = [{"logId": 5001, "activityName": "Walk", "duration": 1320000, "startTime": "2024-03-01 17:05:00"},
         {"logId": 5002, "activityName": "Run", "duration": 1440000, "startTime": "2024-03-01 18:00:00",
          "vo2Max": {"vo2Max": 47.5}}]


def mdy(ts: str) -> str:
    y, m, d = ts[:10].split("-")
    return f"{m}/{d}/{y[2:]}{ts[10:]}"


def zone(day: str, fmt) -> dict:
    return {"dateTime": fmt(day + " 00:00:00"),
            "value": {"valuesInZones": {"BELOW_DEFAULT_ZONE_1": 600.0, "IN_DEFAULT_ZONE_1": 100.0,
                                        "IN_DEFAULT_ZONE_2": 0.0, "IN_DEFAULT_ZONE_3": 0.0}}}


ZIP_NAME = "takeout-20240301T000000Z-001.zip"
BAD_RHR = {"dateTime": "13/45/24 00:00:00", "value": {"date": None, "value": 60.0, "error": 1.0}}
UNSAFE_MEMBERS = ["../steps-2024-03-05.json", "/tmp/steps-2024-03-05.json",
                  "Takeout/Fitbit/Global Export Data/../../../../steps-2024-03-06.json",
                  "Takeout\\Fitbit\\Global Export Data\\steps-2024-03-07.json"]


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
    # the rest of the files, both layouts from the same records
    (pm / "sleep.json").write_text(json.dumps([MAIN_LOG, NAP_LOG]))
    for period, logs in SLEEP_LOGS.items():
        (tk / f"sleep-{period}.json").write_text(json.dumps(logs))

    def rhr(day, bpm, fmt):
        value = {"date": mdy(day)[:8] if bpm else None, "value": bpm, "error": 6.5 if bpm else 0.0}
        return {"dateTime": fmt(day + " 00:00:00"), "value": value}
    (pm / "resting_heart_rate.json").write_text(json.dumps([rhr(d, v, lambda x: x) for d, v in RHR]))
    (tk / "resting_heart_rate-2024-03-01.json").write_text(json.dumps([rhr(d, v, mdy) for d, v in RHR]))
    for level, minutes in LEVELS.items():
        rows = [(d, str(m)) for (d, _), m in zip(RHR, minutes)]
        (pm / f"{level}_minutes.json").write_text(json.dumps([{"dateTime": d + " 00:00:00", "value": m} for d, m in rows]))
        (tk / f"{level}_minutes-2024-03-01.json").write_text(
            json.dumps([{"dateTime": mdy(d + " 00:00:00"), "value": m} for d, m in rows]))
    (pm / "exercise.json").write_text(json.dumps(BOUTS))
    (tk / "exercise-0.json").write_text(json.dumps([{**b, "startTime": mdy(b["startTime"])} for b in BOUTS]))
    # person zed: the same Takeout files left in the Takeout zip, plus one unreadable record, member names
    # that would leave the cache folder, and members no model reads
    zed = data / "fitbit" / "zed"
    zed.mkdir(parents=True)
    with zipfile.ZipFile(zed / ZIP_NAME, "w", zipfile.ZIP_DEFLATED) as zf:
        for f in sorted(tk.iterdir()):
            text = f.read_text()
            if f.name.startswith("resting_heart_rate-"):
                text = json.dumps(json.loads(text) + [BAD_RHR])
            zf.writestr(f"Takeout/Fitbit/Global Export Data/{f.name}", text)
        for name in UNSAFE_MEMBERS:
            zf.writestr(name, json.dumps([{"dateTime": "03/01/24 08:00:00", "value": "99999"}]))
        zf.writestr("Takeout/Fitbit/Global Export Data/heart_rate-2024-03-01.json", "[]")
        zf.writestr("Takeout/Google Fit/Daily activity metrics/2024-03-01.csv", "x\n1\n")
    # person una: a truncated zip (a download cut short) is reported, and the build goes on
    (data / "fitbit" / "una").mkdir(parents=True)
    (data / "fitbit" / "una" / ZIP_NAME).write_bytes((zed / ZIP_NAME).read_bytes()[:100])
    db = tmp / "wag.duckdb"
    zip_digest = hashlib.sha256((zed / ZIP_NAME).read_bytes()).hexdigest()
    res = run_dbt(["build"], db=db, data_dir=data, target=tmp / "target")
    assert res.success, res.result
    assert hashlib.sha256((zed / ZIP_NAME).read_bytes()).hexdigest() == zip_digest   # the raw zip is untouched
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


def _all_values(db: Path, subject: str) -> list:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute("select metric_id, day, round(value, 9), value_text from metric_values where subject_id = ? "
                           "order by metric_id, day", [subject]).fetchall()
    finally:
        con.close()


def test_takeout_other_files_equal_pmdata_layout(fitbit_db):
    takeout, pmdata = _all_values(fitbit_db, "fitbit:kim"), _all_values(fitbit_db, "pmdata:p99")
    assert takeout == pmdata
    metrics = {m for m, *_ in takeout}
    assert {"asleep_duration", "midpoint_of_sleep", "resting_heart_rate", "active_time", "inactive_time",
            "exercise", "vo2_max"} <= metrics, metrics


def test_takeout_hand_values(fitbit_db):
    expected = {"asleep_duration": {"2024-03-02": 400.0}, "total_sleep_duration": {"2024-03-02": 450.0},
                "deep_sleep_duration": {"2024-03-02": 80.0}, "bedtime_start_time": {"2024-03-02": -50.0},
                "bedtime_end_time": {"2024-03-02": 400.0}, "midpoint_of_sleep": {"2024-03-02": 210.0},
                "resting_heart_rate": {"2024-03-01": 57.5, "2024-03-03": 58.0},
                "active_time": {"2024-03-01": 250.0, "2024-03-03": 115.0},
                "inactive_time": {"2024-03-01": 600.0, "2024-03-03": 700.0}, "vo2_max": {"2024-03-01": 47.5}}
    for metric, days in expected.items():
        assert _values(fitbit_db, "fitbit:kim", metric) == days, metric
    rows = [r for r in _all_values(fitbit_db, "fitbit:kim") if r[0] == "exercise"]
    assert [(str(d), t) for _, d, _, t in rows] == [("2024-03-01", "Walk (22 min); Run (24 min)")]


def test_takeout_malformed_records_quarantined(tmp_path):
    """A Takeout record this build cannot read is listed in raw_rejected with its file and element."""
    tk = tmp_path / "data" / "fitbit" / "kim" / "Global Export Data"
    tk.mkdir(parents=True)
    (tk / "resting_heart_rate-2024-03-01.json").write_text(json.dumps(
        [{"dateTime": "03/01/24 00:00:00", "value": {"date": "03/01/24", "value": "fast", "error": 1.0}},
         {"dateTime": "13/45/24 00:00:00", "value": {"date": None, "value": 60.0, "error": 1.0}}]))
    (tk / "sedentary_minutes-2024-03-01.json").write_text(json.dumps([{"dateTime": "03/01/24 00:00:00", "value": "lots"}]))
    db = tmp_path / "wag.duckdb"
    res = run_dbt(["build", "--select", "raw_rejected"], db=db, data_dir=tmp_path / "data", target=tmp_path / "target")
    assert res.success, res.result
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute("select dataset, file, locator, reason from raw_rejected order by file, locator").fetchall()
    finally:
        con.close()
    assert rows == [
        ("fitbit", "fitbit/kim/Global Export Data/resting_heart_rate-2024-03-01.json", "element 1 (dateTime 03/01/24 00:00:00)",
         "value.value is not a number"),
        ("fitbit", "fitbit/kim/Global Export Data/resting_heart_rate-2024-03-01.json", "element 2 (dateTime 13/45/24 00:00:00)",
         "dateTime is not a date (MM/DD/YY HH:MM:SS)"),
        ("fitbit", "fitbit/kim/Global Export Data/sedentary_minutes-2024-03-01.json", "element 1 (dateTime 03/01/24 00:00:00)",
         "value is not a number")]


def test_takeout_zip_reads_as_the_folder(fitbit_db):
    """fitbit/zed/ holds the Takeout zip instead of the folder: the same day values as kim's folder."""
    assert _all_values(fitbit_db, "fitbit:zed") == _all_values(fitbit_db, "fitbit:kim")
    con = duckdb.connect(str(fitbit_db), read_only=True)
    try:
        files = con.execute("select subject_id, file, status, members_copied, members_skipped_unsafe, members_not_read "
                            "from stg_fitbit__takeout_files").fetchall()
        rejected = con.execute("select file, locator, reason from raw_rejected where dataset = 'fitbit' "
                               "and file not like 'fitbit/una/%'").fetchall()
        una = con.execute("select file, locator, reason, raw_text from raw_rejected where file like 'fitbit/una/%'").fetchall()
    finally:
        con.close()
    n_takeout_files = len(list((fitbit_db.parent / "data" / "fitbit" / "kim" / "Takeout" / "Fitbit" /
                                "Global Export Data").iterdir()))
    assert sorted(files) == [("fitbit:una", f"fitbit/una/{ZIP_NAME}", "failed", 0, 0, 0),
                             ("fitbit:zed", f"fitbit/zed/{ZIP_NAME}", "read", n_takeout_files, len(UNSAFE_MEMBERS), 2)]
    assert [r[:3] for r in una] == [(f"fitbit/una/{ZIP_NAME}", "the zip", "the zip could not be read (nothing in it was read)")]
    assert "BadZipFile" in una[0][3]
    # a record inside the zip is quarantined under the member's path in the zip
    assert sorted(rejected) == [
        (f"fitbit/zed/{ZIP_NAME}", "the zip",
         "member names that would leave the extraction folder (absolute, .., backslash) skipped"),
        (f"fitbit/zed/{ZIP_NAME}/Takeout/Fitbit/Global Export Data/resting_heart_rate-2024-03-01.json",
         "element 4 (dateTime 13/45/24 00:00:00)", "dateTime is not a date (MM/DD/YY HH:MM:SS)")]


def test_takeout_zip_unsafe_members_never_written(fitbit_db):
    tmp = fitbit_db.parent
    cache = Path(str(fitbit_db) + ".takeout")
    copied = sorted(str(p.relative_to(cache)) for p in cache.rglob("*.json") if p.name != ".source.json")
    assert copied and all(c.startswith(f"fitbit/zed/{ZIP_NAME}/Takeout/Fitbit/Global Export Data/") for c in copied)
    for day in ("03-05", "03-06", "03-07"):
        assert not [p for p in tmp.parent.rglob(f"*steps-2024-{day}.json")], day
    assert not Path("/tmp/steps-2024-03-05.json").exists()


def test_takeout_copy_is_cached_and_forgets_removed_zips(tmp_path):
    """wag_cli.fitbit_takeout alone: an unchanged zip is not copied again; a removed zip's copy goes."""
    from wag_cli.fitbit_takeout import extract_takeout_zips, is_safe_member

    assert [is_safe_member(n) for n in ("Takeout/a.json", "../a.json", "/a.json", "C:/a.json", "a\\b.json",
                                        "Takeout//a.json", "Takeout/a\n.json")] == [True, False, False, False, False, False, False]
    person = tmp_path / "data" / "fitbit" / "amy"
    person.mkdir(parents=True)
    with zipfile.ZipFile(person / ZIP_NAME, "w") as zf:
        zf.writestr("Takeout/Fitbit/Global Export Data/steps-2024-03-01.json", "[]")
    cache = tmp_path / "cache"
    first = extract_takeout_zips(tmp_path / "data", cache)
    second = extract_takeout_zips(tmp_path / "data", cache)
    assert [(r.status, r.members_copied) for r in first + second] == [("read", 1), ("cached", 1)]
    (person / ZIP_NAME).unlink()
    assert extract_takeout_zips(tmp_path / "data", cache) == []
    assert not list(cache.rglob("*.json"))


def test_spark_build_notes_the_inputs_it_does_not_read(tmp_path):
    """Apple Health exports and Takeout zips are read by dbt Python models, disabled on Spark
    (dbt_project.yml): `wag build --engine spark` names what it leaves unread; an unzipped export is read."""
    from wag_cli.build import spark_unread_inputs

    (tmp_path / "pmdata" / "p01").mkdir(parents=True)
    (tmp_path / "fitbit" / "kim" / "Takeout").mkdir(parents=True)
    (tmp_path / "fitbit" / "kim" / "Takeout" / "steps-2024-03-01.json").write_text("[]")
    (tmp_path / "apple_health" / "anna").mkdir(parents=True)
    assert spark_unread_inputs(tmp_path) == []          # an empty person folder, an unzipped export
    (tmp_path / "fitbit" / "kim" / "takeout-001.zip").write_bytes(b"PK")
    (tmp_path / "apple_health" / "anna" / "export.zip").write_bytes(b"PK")
    unread = spark_unread_inputs(tmp_path)
    assert len(unread) == 2 and unread[0].startswith("apple_health/") and "Takeout zips" in unread[1]
