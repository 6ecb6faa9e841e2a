"""PMData staging models (DESIGN.md §2; FORMATS.md §0, §1, §5).

The PMData staging-contract models (stg_pmdata__* and, since issue 25 moved the rules out of staging,
int_pmdata__* of models/intermediate/pmdata) and the raw_field_map_pmdata seed are built with ``run_dbt`` (tests/conftest.py)
into temporary DuckDB files on three data roots: the real excerpts in ../shared/data, a copy of p01 whose
CSVs are rewritten with CRLF line endings (the original release's line ending), and an empty folder
(every model must build empty). Expected values are computed here from the raw files with json, csv and
pandas — never copied from the SQL output. Queries use the stg models and raw_field names only, so that
they can later run against ``metric_values`` of the shared ``built_db`` fixture.
"""

from __future__ import annotations

import csv
import json
import math
import shutil
from collections import defaultdict
from datetime import date, datetime, timedelta
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from conftest import REPO, run_dbt

MODELS = [
    "stg_pmdata__sleep",
    "int_pmdata__sleep_score_deduplicated",
    "stg_pmdata__steps",
    "stg_pmdata__distance",
    "stg_pmdata__activity_minutes",
    "stg_pmdata__resting_heart_rate",
    "stg_pmdata__exercise",
    "int_pmdata__wellness_deduplicated",
    "int_pmdata__srpe_aggregated",
    "stg_pmdata__reporting",
]
CONTRACT = [
    ("dataset", "VARCHAR"),
    ("subject_id", "VARCHAR"),
    ("day", "DATE"),
    ("raw_field", "VARCHAR"),
    ("value", "DOUBLE"),
    ("value_text", "VARCHAR"),
]
OSLO = "Europe/Oslo"
SEED = REPO / "seeds" / "raw_field_map" / "raw_field_map_pmdata.csv"


# --------------------------------------------------------------------------------------------------
# building and querying


def _build(tmp: Path, data_dir: Path, *, with_seed: bool) -> Path:
    db = tmp / "wag.duckdb"
    select = ["path:models/staging/pmdata", "path:models/intermediate/pmdata"]
    if with_seed:
        select.append("raw_field_map_pmdata")
        if (REPO / "seeds" / "metric_catalog.csv").exists():  # the seed's relationships test needs it
            select.append("metric_catalog")
    # cautious: only tests whose parents are all selected (metric_catalog alone would pull in other
    # models' relationships tests)
    res = run_dbt(
        ["build", "--select", *select, "--indirect-selection", "cautious"],
        db=db, data_dir=data_dir, target=tmp / "target",
    )
    if not res.success:
        failed = [
            f"{r.node.name}: {r.message}"
            for r in getattr(res.result, "results", None) or []
            if str(r.status).lower().split(".")[-1] not in ("success", "pass")
        ]
        raise AssertionError(f"dbt build of the PMData staging models on {data_dir} failed: {res.exception or failed}")
    return db


def _rows(db: Path, sql: str, params: list | None = None) -> list[tuple]:
    # Not read_only: dbt-duckdb keeps its read-write instance of this file open in-process after an
    # in-process run, and DuckDB refuses a second instance with a different configuration.
    con = duckdb.connect(str(db))
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def _series(db: Path, model: str, subject_id: str, raw_field: str) -> dict[date, float | str]:
    rows = _rows(
        db,
        f"select day, value, value_text from {model} where subject_id = ? and raw_field = ? order by day",
        [subject_id, raw_field],
    )
    out: dict[date, float | str] = {}
    for day, value, text in rows:
        assert day not in out, f"duplicate row {subject_id} {day} {raw_field}"
        out[day] = text if value is None else value
    return out


def _one(db: Path, model: str, subject_id: str, day: str, raw_field: str):
    got = _series(db, model, subject_id, raw_field)
    return got.get(date.fromisoformat(day))


@pytest.fixture(scope="module")
def pm_root(shared_data: Path) -> Path:
    root = shared_data / "pmdata"
    if not root.is_dir():
        pytest.skip(f"PMData excerpt not found at {root}")
    return root


@pytest.fixture(scope="module")
def pm_db(shared_data: Path, pm_root: Path, tmp_path_factory) -> Path:
    return _build(tmp_path_factory.mktemp("pmdata_real"), shared_data, with_seed=True)


# --------------------------------------------------------------------------------------------------
# raw-file helpers (plain Python)


def _json(root: Path, pid: str, name: str) -> list:
    with open(root / pid / "fitbit" / name, encoding="utf-8") as f:
        return json.load(f)


def _csv(root: Path, pid: str, rel: str) -> list[dict]:
    with open(root / pid / rel, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _ts(text: str) -> datetime:
    """Fitbit local time, '2019-11-02 00:09:30' or '2019-11-02T07:19:30.000'."""
    return datetime.strptime(text[:19].replace("T", " "), "%Y-%m-%d %H:%M:%S")


def _main_sleep(root: Path, pid: str) -> dict[date, dict]:
    """Main-sleep log per wake-up day: dedupe on logId, mainSleep only, longest if several."""
    by_id = {}
    for rec in _json(root, pid, "sleep.json"):
        by_id[rec["logId"]] = rec
    per_day: dict[date, dict] = {}
    for rec in by_id.values():
        if not rec["mainSleep"]:
            continue
        d = date.fromisoformat(rec["dateOfSleep"])
        if d not in per_day or rec["timeInBed"] > per_day[d]["timeInBed"]:
            per_day[d] = rec
    return per_day


def _minute_daily(root: Path, pid: str, name: str) -> dict[date, float]:
    """Per-minute file -> per-day sums after keeping one row per timestamp."""
    minutes: dict[str, float] = {}
    for rec in _json(root, pid, name):
        minutes[rec["dateTime"]] = max(float(rec["value"]), minutes.get(rec["dateTime"], float("-inf")))
    days: dict[date, float] = defaultdict(float)
    for ts, v in minutes.items():
        days[date.fromisoformat(ts[:10])] += v
    return dict(days)


def _hr_days(root: Path, pid: str) -> set[date]:
    path = root / pid / "fitbit" / "time_in_heart_rate_zones.json"
    if not path.exists():
        return set()
    out = set()
    for rec in _json(root, pid, "time_in_heart_rate_zones.json"):
        if sum(float(v) for v in rec["value"]["valuesInZones"].values()) > 0:
            out.add(date.fromisoformat(rec["dateTime"][:10]))
    return out


def _daily_minutes(root: Path, pid: str) -> dict[date, dict[str, float]]:
    out: dict[date, dict[str, float]] = defaultdict(dict)
    for level in ("sedentary", "lightly_active", "moderately_active", "very_active"):
        for rec in _json(root, pid, f"{level}_minutes.json"):
            out[date.fromisoformat(rec["dateTime"][:10])][level] = float(rec["value"])
    return dict(out)


def _local_day(utc_text: pd.Series) -> pd.Series:
    return pd.to_datetime(utc_text.str.strip(), utc=True, format="ISO8601").dt.tz_convert(OSLO).dt.date


def _seed_rows() -> dict[str, dict]:
    with open(SEED, newline="", encoding="utf-8") as f:
        return {r["raw_field"]: r for r in csv.DictReader(f)}


# --------------------------------------------------------------------------------------------------
# contract, seed


def test_every_model_has_the_staging_contract_columns(pm_db: Path):
    for model in MODELS:
        cols = _rows(
            pm_db,
            "select column_name, data_type from information_schema.columns where table_name = ? order by ordinal_position",
            [model],
        )
        assert cols == CONTRACT, model
        n = _rows(pm_db, f"select count(*) from {model}")[0][0]
        assert n > 0, f"{model} is empty on the real excerpts"
        dup = _rows(
            pm_db,
            f"select subject_id, day, raw_field from {model} group by all having count(*) > 1 limit 1",
        )
        assert dup == [], f"{model}: duplicate key {dup}"
        bad = _rows(
            pm_db,
            f"select count(*) from {model} where dataset <> 'pmdata' or subject_id not like 'pmdata:p__' "
            "or (value is null and value_text is null)",
        )[0][0]
        assert bad == 0, model


def test_seed_covers_every_emitted_raw_field(pm_db: Path):
    with open(SEED, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader)
        body = list(reader)
    assert header == ["dataset", "raw_field", "metric_id", "scale", "offset", "note"]
    fields = [r[1] for r in body]
    assert len(fields) == len(set(fields)), "raw_field listed twice in the seed"
    assert all(r[0] == "pmdata" for r in body)
    emitted = set()
    for model in MODELS:
        emitted |= {r[0] for r in _rows(pm_db, f"select distinct raw_field from {model}")}
    assert emitted == set(fields), f"emitted-not-mapped {emitted - set(fields)}, mapped-not-emitted {set(fields) - emitted}"
    catalog = REPO / "seeds" / "metric_catalog.csv"
    if catalog.exists():
        with open(catalog, newline="", encoding="utf-8") as f:
            known = {r["metric_id"] for r in csv.DictReader(f)}
        assert {r[2] for r in body} <= known
    seed = _seed_rows()
    # orientation and unit conversions stated in FORMATS.md §0.7, §0.8
    conv = lambda field, x: x * float(seed[field]["scale"]) + float(seed[field]["offset"])  # noqa: E731
    assert conv("wellness.fatigue", 5) == 1 and conv("wellness.fatigue", 1) == 5
    assert conv("wellness.stress", 5) == 1 and conv("wellness.stress", 2) == 4
    assert conv("wellness.mood", 4) == 4
    assert conv("distance.sum", 123_456) == pytest.approx(1234.56)
    # the seed loads with these types (offset is a reserved word in SQL)
    loaded = dict(
        (r[1], (r[3], r[4]))
        for r in _rows(pm_db, 'select dataset, raw_field, metric_id, scale, "offset" from raw_field_map_pmdata')
    )
    assert loaded["wellness.stress"] == (-1.0, 6.0)


# --------------------------------------------------------------------------------------------------
# sleep.json


@pytest.mark.parametrize("night", ["first", "duplicated_log", "dst"])
def test_sleep_p01_nights_match_main_sleep_record(pm_db: Path, pm_root: Path, night: str):
    main = _main_sleep(pm_root, "p01")
    if night == "first":
        day = min(main)
    elif night == "duplicated_log":
        seen, dup = set(), None
        for rec in _json(pm_root, "p01", "sleep.json"):
            if rec["logId"] in seen and rec["mainSleep"]:
                dup = rec
                break
            seen.add(rec["logId"])
        assert dup is not None, "p01 sleep.json was expected to repeat a main-sleep record (FORMATS §0.6)"
        day = date.fromisoformat(dup["dateOfSleep"])
    else:
        day = date(2020, 3, 29)  # night of the CET -> CEST change
        assert day in main
    rec = main[day]
    sid, d = "pmdata:p01", day.isoformat()
    assert _one(pm_db, "stg_pmdata__sleep", sid, d, "sleep.timeInBed") == rec["timeInBed"]
    assert _one(pm_db, "stg_pmdata__sleep", sid, d, "sleep.efficiency") == rec["efficiency"]
    assert _one(pm_db, "stg_pmdata__sleep", sid, d, "sleep.minutesAsleep") == rec["minutesAsleep"]
    assert _one(pm_db, "stg_pmdata__sleep", sid, d, "sleep.minutesAwake") == rec["minutesAwake"]
    assert _one(pm_db, "stg_pmdata__sleep", sid, d, "sleep.levels.deep.minutes") == rec["levels"]["summary"]["deep"]["minutes"]
    assert _one(pm_db, "stg_pmdata__sleep", sid, d, "sleep.levels.rem.minutes") == rec["levels"]["summary"]["rem"]["minutes"]
    assert _one(pm_db, "stg_pmdata__sleep", sid, d, "sleep.minutesToFallAsleep") == 0
    midnight = datetime.combine(day, datetime.min.time())
    start_min = (_ts(rec["startTime"]) - midnight).total_seconds() / 60
    end_min = (_ts(rec["endTime"]) - midnight).total_seconds() / 60
    assert _one(pm_db, "stg_pmdata__sleep", sid, d, "sleep.startTime") == pytest.approx(start_min)
    assert _one(pm_db, "stg_pmdata__sleep", sid, d, "sleep.endTime") == pytest.approx(end_min)


def test_sleep_bedtime_before_midnight_is_negative(pm_db: Path, pm_root: Path):
    main = _main_sleep(pm_root, "p01")
    evening = [(d, r) for d, r in sorted(main.items()) if _ts(r["startTime"]).date() < d]
    assert evening, "p01 has nights starting the evening before"
    day, rec = evening[0]
    start = _ts(rec["startTime"])
    expected = -((datetime.combine(day, datetime.min.time()) - start).total_seconds() / 60)
    assert expected < 0
    assert _one(pm_db, "stg_pmdata__sleep", "pmdata:p01", day.isoformat(), "sleep.startTime") == pytest.approx(expected)


def test_sleep_one_row_per_wake_up_day_and_no_stage_rows_for_classic_logs(pm_db: Path, pm_root: Path):
    for pid in ("p01", "p03", "p13", "p16"):
        main = _main_sleep(pm_root, pid)
        got = _series(pm_db, "stg_pmdata__sleep", f"pmdata:{pid}", "sleep.timeInBed")
        assert got == {d: r["timeInBed"] for d, r in main.items()}, pid
        deep = _series(pm_db, "stg_pmdata__sleep", f"pmdata:{pid}", "sleep.levels.deep.minutes")
        assert set(deep) == {d for d, r in main.items() if r["type"] == "stages"}, pid
    classic = [d for d, r in _main_sleep(pm_root, "p03").items() if r["type"] == "classic"]
    assert classic, "p03 has classic main-sleep logs (FORMATS §1.3)"
    d = classic[0].isoformat()
    assert _one(pm_db, "stg_pmdata__sleep", "pmdata:p03", d, "sleep.levels.light.minutes") is None
    assert _one(pm_db, "stg_pmdata__sleep", "pmdata:p03", d, "sleep.timeInBed") is not None


def _asleep_midpoint(rec: dict) -> float | None:
    """Minutes from startTime until half of the asleep 30-s epochs (data minus shortData wakes) elapsed."""
    levels = rec.get("levels") or {}
    asleep: set[datetime] = set()
    for seg in levels.get("data") or []:
        if seg["level"] in ("light", "deep", "rem", "asleep"):
            t0 = _ts(seg["dateTime"])
            asleep |= {t0 + timedelta(seconds=s) for s in range(0, int(round(seg["seconds"])), 30)}
    for seg in levels.get("shortData") or []:
        t0 = _ts(seg["dateTime"])
        asleep -= {t0 + timedelta(seconds=s) for s in range(0, int(round(seg["seconds"])), 30)}
    if not asleep:
        return None
    epochs = sorted(asleep)
    n = len(epochs)
    k = math.ceil(n / 2)  # 1-based epoch inside which n/2 epochs have been slept
    t_half = epochs[k - 1] + timedelta(seconds=30 * (n / 2 - (k - 1)))
    return (t_half - _ts(rec["startTime"])).total_seconds() / 60


def test_sleep_asleep_midpoint(pm_db: Path, pm_root: Path):
    for pid in ("p01", "p03"):
        main = _main_sleep(pm_root, pid)
        got = _series(pm_db, "stg_pmdata__sleep", f"pmdata:{pid}", "sleep.levels.asleep_midpoint")
        expected = {d: m for d, r in main.items() if (m := _asleep_midpoint(r)) is not None}
        assert got.keys() == expected.keys(), pid
        for d in expected:
            assert got[d] == pytest.approx(expected[d]), (pid, d)
            assert 0 < got[d] < main[d]["timeInBed"]


# --------------------------------------------------------------------------------------------------
# sleep_score.csv


def test_sleep_score_local_day_and_earliest_score_per_day(pm_db: Path, pm_root: Path):
    for pid in ("p01", "p03", "p16"):
        rows = _csv(pm_root, pid, "fitbit/sleep_score.csv")
        first: dict[date, tuple[str, float]] = {}
        for r in rows:
            d = date.fromisoformat(r["timestamp"][:10])  # local wall time despite 'Z' (FORMATS §0.3)
            if d not in first or r["timestamp"] < first[d][0]:
                first[d] = (r["timestamp"], float(r["overall_score"]))
        got = _series(pm_db, "int_pmdata__sleep_score_deduplicated", f"pmdata:{pid}", "sleep_score.overall_score")
        assert got == {d: v for d, (_, v) in first.items()}, pid
    assert _one(pm_db, "int_pmdata__sleep_score_deduplicated", "pmdata:p01", "2019-11-02", "sleep_score.overall_score") == 79
    # p03 2019-12-21: the night (05:51) and an evening nap (23:38) are both scored -> the night's score
    p03 = [r for r in _csv(pm_root, "p03", "fitbit/sleep_score.csv") if r["timestamp"].startswith("2019-12-21")]
    assert len(p03) == 2
    night = min(p03, key=lambda r: r["timestamp"])
    assert _one(pm_db, "int_pmdata__sleep_score_deduplicated", "pmdata:p03", "2019-12-21", "sleep_score.overall_score") == float(
        night["overall_score"]
    )


# --------------------------------------------------------------------------------------------------
# steps.json / distance.json


def test_steps_p03_day_and_p13_duplicated_minutes(pm_db: Path, pm_root: Path):
    p03 = _minute_daily(pm_root, "p03", "steps.json")
    assert _one(pm_db, "stg_pmdata__steps", "pmdata:p03", "2019-11-15", "steps.sum") == p03[date(2019, 11, 15)]
    # p13 repeats 217 minute rows 2019-12-15 23:01 .. 2019-12-16 (FORMATS §0.6)
    raw = _json(pm_root, "p13", "steps.json")
    naive = sum(float(r["value"]) for r in raw if r["dateTime"].startswith("2019-12-16"))
    dedup = _minute_daily(pm_root, "p13", "steps.json")
    assert naive > dedup[date(2019, 12, 16)], "the duplicated span should inflate a naive sum"
    for d in ("2019-12-15", "2019-12-16"):
        assert _one(pm_db, "stg_pmdata__steps", "pmdata:p13", d, "steps.sum") == dedup[date.fromisoformat(d)]


@pytest.mark.parametrize("name,model,field", [("steps.json", "stg_pmdata__steps", "steps.sum"),
                                              ("distance.json", "stg_pmdata__distance", "distance.sum")])
def test_minute_series_whole_period(pm_db: Path, pm_root: Path, name: str, model: str, field: str):
    for pid in ("p03", "p13", "p16"):
        daily = _minute_daily(pm_root, pid, name)
        hr = _hr_days(pm_root, pid)
        expected = {d: v for d, v in daily.items() if v > 0 or d in hr}  # 0 and no HR data = not worn
        got = _series(pm_db, model, f"pmdata:{pid}", field)
        assert got.keys() == expected.keys(), pid
        for d in expected:
            assert got[d] == pytest.approx(expected[d]), (pid, d)
    # p03 2019-11-03: one minute row, 0 steps, no heart-rate data -> missing, not zero
    assert _minute_daily(pm_root, "p03", "steps.json")[date(2019, 11, 3)] == 0
    assert _one(pm_db, "stg_pmdata__steps", "pmdata:p03", "2019-11-03", "steps.sum") is None
    # no minute rows at all -> no row
    assert date(2019, 11, 1) not in _minute_daily(pm_root, "p13", "steps.json")
    assert _one(pm_db, model, "pmdata:p13", "2019-11-01", field) is None


def test_distance_is_centimetres_converted_by_the_seed(pm_db: Path, pm_root: Path):
    cm = _minute_daily(pm_root, "p13", "distance.json")[date(2019, 12, 16)]
    raw = _one(pm_db, "stg_pmdata__distance", "pmdata:p13", "2019-12-16", "distance.sum")
    assert raw == pytest.approx(cm)
    seed = _seed_rows()["distance.sum"]
    assert seed["metric_id"] == "distance_traveled"
    metres = raw * float(seed["scale"]) + float(seed["offset"])
    assert metres == pytest.approx(cm / 100)


# --------------------------------------------------------------------------------------------------
# daily activity minutes


def test_activity_minutes_and_not_worn_days(pm_db: Path, pm_root: Path):
    fields = {
        "sedentary": "activity.sedentary_minutes",
        "lightly_active": "activity.lightly_active_minutes",
        "moderately_active": "activity.moderately_active_minutes",
        "very_active": "activity.very_active_minutes",
    }
    for pid in ("p01", "p03", "p13", "p16"):
        daily = _daily_minutes(pm_root, pid)
        not_worn = {
            d for d, v in daily.items()
            if v["sedentary"] == 1440 and v["lightly_active"] + v["moderately_active"] + v["very_active"] == 0
        }
        sid = f"pmdata:{pid}"
        for level, field in fields.items():
            expected = {d: v[level] for d, v in daily.items() if d not in not_worn}
            assert _series(pm_db, "stg_pmdata__activity_minutes", sid, field) == expected, (pid, field)
        active = {
            d: v["lightly_active"] + v["moderately_active"] + v["very_active"]
            for d, v in daily.items() if d not in not_worn
        }
        assert _series(pm_db, "stg_pmdata__activity_minutes", sid, "activity.active_minutes") == active, pid
        if pid == "p13":
            assert len(not_worn) == 70  # FORMATS §0.5
            day = min(not_worn).isoformat()
            left = _rows(
                pm_db,
                "select raw_field from stg_pmdata__activity_minutes where subject_id = ? and day = cast(? as date)",
                [sid, day],
            )
            assert left == [], f"not-worn day {day} still has rows {left}"


# --------------------------------------------------------------------------------------------------
# resting_heart_rate.json


def test_resting_heart_rate_drops_zero_sentinel(pm_db: Path, pm_root: Path):
    raw = _json(pm_root, "p03", "resting_heart_rate.json")
    expected = {date.fromisoformat(r["dateTime"][:10]): r["value"]["value"] for r in raw if r["value"]["value"] > 0}
    sentinel = [r for r in raw if r["value"]["value"] == 0]
    assert len(sentinel) == 51 and all(r["value"]["date"] is None for r in sentinel)
    got = _series(pm_db, "stg_pmdata__resting_heart_rate", "pmdata:p03", "resting_heart_rate.value")
    assert got.keys() == expected.keys()
    for d in expected:
        assert got[d] == pytest.approx(expected[d])
    assert _one(pm_db, "stg_pmdata__resting_heart_rate", "pmdata:p03", sentinel[0]["dateTime"][:10],
                "resting_heart_rate.value") is None
    # p13 has no resting_heart_rate.json: no rows, no error
    assert _series(pm_db, "stg_pmdata__resting_heart_rate", "pmdata:p13", "resting_heart_rate.value") == {}


# --------------------------------------------------------------------------------------------------
# exercise.json


def test_exercise_text_and_vo2max(pm_db: Path, pm_root: Path):
    bouts = {r["logId"]: r for r in _json(pm_root, "p01", "exercise.json")}
    per_day: dict[date, list[dict]] = defaultdict(list)
    for r in bouts.values():
        per_day[_ts(r["startTime"]).date()].append(r)
    text = {
        d: "; ".join(
            f"{r['activityName']} ({int(math.floor(r['duration'] / 60000 + 0.5))} min)"
            for r in sorted(rs, key=lambda r: (_ts(r["startTime"]), str(r["logId"])))
        )
        for d, rs in per_day.items()
    }
    got = _series(pm_db, "stg_pmdata__exercise", "pmdata:p01", "exercise.activities")
    assert got == text
    # 2019-11-05: an auto-detected walk, then a GPS run with a VO2 max estimate
    day = date(2019, 11, 5)
    assert got[day] == text[day] and text[day].startswith("Walk (") and "Run (" in text[day]
    vo2 = {
        d: sum(v) / len(v)
        for d, rs in per_day.items()
        if (v := [r["vo2Max"]["vo2Max"] for r in rs if isinstance(r.get("vo2Max"), dict)])
    }
    got_vo2 = _series(pm_db, "stg_pmdata__exercise", "pmdata:p01", "exercise.vo2Max")
    assert got_vo2.keys() == vo2.keys() and day in vo2
    for d in vo2:
        assert got_vo2[d] == pytest.approx(vo2[d])


# --------------------------------------------------------------------------------------------------
# pmsys/wellness.csv, srpe.csv, injury.csv


def _wellness_expected(pm_root: Path, pid: str) -> pd.DataFrame:
    df = pd.read_csv(pm_root / pid / "pmsys" / "wellness.csv", dtype=str)
    df["ts"] = pd.to_datetime(df["effective_time_frame"], utc=True, format="ISO8601")
    df["day"] = df["ts"].dt.tz_convert(OSLO).dt.date
    return df.sort_values("ts").groupby("day").tail(1).set_index("day")


def test_wellness_local_day_and_last_report(pm_db: Path, pm_root: Path):
    ranges = {"fatigue": (1, 5), "stress": (1, 5), "mood": (1, 5), "readiness": (0, 10)}
    for pid in ("p01", "p03", "p13", "p16"):
        last = _wellness_expected(pm_root, pid)
        for item, (lo, hi) in ranges.items():
            expected = {d: float(v) for d, v in last[item].items() if lo <= float(v) <= hi}
            got = _series(pm_db, "int_pmdata__wellness_deduplicated", f"pmdata:{pid}", f"wellness.{item}")
            assert got == expected, (pid, item)
    # p03 reported at 23:50 UTC on 2019-11-16 = 00:50 on 2019-11-17 in Oslo, and again at 11:19 UTC on the
    # 17th: both belong to the 17th (the later one wins); the 16th gets nothing from the late report.
    raw = pd.read_csv(pm_root / "p03" / "pmsys" / "wellness.csv", dtype=str)
    late = raw[raw["effective_time_frame"] == "2019-11-16T23:50:57.679Z"]
    assert len(late) == 1
    assert _local_day(late["effective_time_frame"]).iloc[0] == date(2019, 11, 17)
    later = raw[raw["effective_time_frame"].str.startswith("2019-11-17")]
    assert len(later) == 1
    assert _one(pm_db, "int_pmdata__wellness_deduplicated", "pmdata:p03", "2019-11-17", "wellness.readiness") == float(
        later["readiness"].iloc[0]
    )
    utc_16 = raw[_local_day(raw["effective_time_frame"]) == date(2019, 11, 16)]
    got_16 = _one(pm_db, "int_pmdata__wellness_deduplicated", "pmdata:p03", "2019-11-16", "wellness.readiness")
    assert got_16 == (float(utc_16["readiness"].iloc[-1]) if len(utc_16) else None)
    # 2020-03-30T23:06Z is 01:06 on 2020-03-31 (CEST)
    assert _one(pm_db, "int_pmdata__wellness_deduplicated", "pmdata:p03", "2020-03-31", "wellness.fatigue") == float(
        raw.loc[raw["effective_time_frame"] == "2020-03-30T23:06:29.537Z", "fatigue"].iloc[0]
    )


def test_srpe_training_load_per_local_day(pm_db: Path, pm_root: Path):
    for pid in ("p01", "p13", "p16"):
        df = pd.read_csv(pm_root / pid / "pmsys" / "srpe.csv", dtype=str).drop_duplicates()
        df["rpe"] = pd.to_numeric(df["perceived_exertion"], errors="coerce")
        df["minutes"] = pd.to_numeric(df["duration_min"], errors="coerce")
        df = df.dropna(subset=["rpe", "minutes"])
        df["day"] = _local_day(df["end_date_time"])
        expected = (df["rpe"] * df["minutes"]).groupby(df["day"]).sum().to_dict()
        got = _series(pm_db, "int_pmdata__srpe_aggregated", f"pmdata:{pid}", "srpe.training_load")
        assert got == {d: float(v) for d, v in expected.items()}, pid
    # p16 logged only empty sessions (' {},,')
    assert _series(pm_db, "int_pmdata__srpe_aggregated", "pmdata:p16", "srpe.training_load") == {}


# --------------------------------------------------------------------------------------------------
# googledocs/reporting.csv (+ sRPE and injuries in the lifelog text)


def test_reporting_lifelog_latest_submission_wins(pm_db: Path, pm_root: Path):
    for pid in ("p01", "p03", "p13", "p16"):
        df = pd.read_csv(pm_root / pid / "googledocs" / "reporting.csv", dtype=str, keep_default_na=False)
        df["day"] = pd.to_datetime(df["date"], format="%d/%m/%Y").dt.date
        df["sub"] = pd.to_datetime(df["timestamp"], format="%d/%m/%Y %H:%M:%S")
        latest = df.sort_values("sub").groupby("day").tail(1).set_index("day")
        got = _series(pm_db, "stg_pmdata__reporting", f"pmdata:{pid}", "reporting.lifelog")
        for d, r in latest.iterrows():
            parts = []
            if r["meals"].strip():
                parts.append(f"meals: {r['meals'].strip()}")
            if r["weight"].strip():
                parts.append(f"weight: {r['weight'].strip()} kg")
            if r["glasses_of_fluid"].strip():
                parts.append(f"fluid: {r['glasses_of_fluid'].strip()} glasses")
            if r["alcohol_consumed"].strip():
                parts.append(f"alcohol: {r['alcohol_consumed'].strip()}")
            expected = "; ".join(parts)
            assert got[d] == expected or got[d].startswith(expected + "; "), (pid, d, got[d], expected)
    # p01 has two rows for 15/11/2019: submitted 15/12/2019 23:20:39 (fluid 9) and 15/11/2019 23:38:30 (fluid 8)
    text = _one(pm_db, "stg_pmdata__reporting", "pmdata:p01", "2019-11-15", "reporting.lifelog")
    assert "fluid: 9 glasses" in text and "fluid: 8 glasses" not in text


def test_lifelog_carries_training_and_injury(pm_db: Path, pm_root: Path):
    # p01 14/11/2019: the form row and a team soccer session (2019-11-14T21:00:53Z, RPE 7, 60 min)
    text = _one(pm_db, "stg_pmdata__reporting", "pmdata:p01", "2019-11-14", "reporting.lifelog")
    assert text.startswith("meals: ") and text.endswith("training: team, soccer 60 min RPE 7")
    injuries = [r for r in _csv(pm_root, "p01", "pmsys/injury.csv") if r["injuries"].strip() not in ("", "{}")]
    assert len(injuries) == 1
    day = _local_day(pd.Series([injuries[0]["effective_time_frame"]])).iloc[0]
    text = _one(pm_db, "stg_pmdata__reporting", "pmdata:p01", day.isoformat(), "reporting.lifelog")
    assert "injury: right_hand minor" in text


# --------------------------------------------------------------------------------------------------
# line endings, empty root


def test_crlf_csvs_give_the_same_rows(pm_db: Path, pm_root: Path, tmp_path: Path):
    root = tmp_path / "data"
    src = pm_root / "p01"
    for path in src.rglob("*"):
        if not path.is_file():
            continue
        dst = root / "pmdata" / "p01" / path.relative_to(src)
        dst.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".csv":
            data = path.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
            assert b"\r\n" in data
            dst.write_bytes(data)
        else:
            shutil.copyfile(path, dst)
    db = _build(tmp_path, root, with_seed=False)
    for model in MODELS:
        sql = f"select day, raw_field, value, value_text from {model} where subject_id = 'pmdata:p01' order by all"
        crlf = _rows(db, sql)
        assert crlf == _rows(pm_db, sql), model
        assert all("\r" not in (t or "") for *_, t in crlf), model


def test_empty_data_root_builds_empty_models(tmp_path: Path):
    empty = tmp_path / "empty"
    empty.mkdir()
    db = _build(tmp_path, empty, with_seed=False)
    for model in MODELS:
        assert _rows(db, f"select count(*) from {model}")[0][0] == 0, model
        cols = _rows(
            db,
            "select column_name, data_type from information_schema.columns where table_name = ? order by ordinal_position",
            [model],
        )
        assert cols == CONTRACT, model
