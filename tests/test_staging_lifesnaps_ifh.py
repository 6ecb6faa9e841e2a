"""LifeSnaps and IFH Affect staging models (DESIGN.md §2, FORMATS.md §2, §4, §5).

The models and their field-map seeds are built into temporary DuckDB files with ``run_dbt``
(tests/conftest.py) on three data roots: the real excerpts in ../shared/data, an empty folder
(every model must build empty) and a folder holding only LifeSnaps ``panas.csv`` (each survey file is
optional on its own). Expected values are computed here from the raw files with the csv module and
pandas, never copied from the SQL output; conversions use the factors read from the seed CSVs.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from conftest import REPO, run_dbt

LIFESNAPS_DAILY = "lifesnaps/rais_anonymized/csv_rais_anonymized/daily_fitbit_sema_df_unprocessed.csv"
LIFESNAPS_SURVEYS = "lifesnaps/rais_anonymized/scored_surveys"
IFH = "ifh_affect"

MODELS = ["stg_lifesnaps__daily", "stg_lifesnaps__surveys", "int_ifh_affect__sleep_unpivoted", "stg_ifh_affect__activity"]
# Raw fields staged on purpose without a catalog metric (documented in the model headers and yml).
UNMAPPED = {"activity.non_wear", "stai.stai_stress"}


def _selection() -> list[str]:
    sel = [
        "path:models/staging/lifesnaps",
        "path:models/staging/ifh_affect",
        "path:models/intermediate/ifh_affect",
        "raw_field_map_lifesnaps",
        "raw_field_map_ifh_affect",
    ]
    # The seeds' relationships tests need the catalog when it exists.
    if (REPO / "seeds" / "metric_catalog.csv").exists():
        sel.append("metric_catalog")
    return sel


def _build(tmp: Path, data_dir: Path) -> Path:
    db = tmp / "wag.duckdb"
    # cautious: only tests whose parents are all selected (not other models' tests on metric_catalog)
    res = run_dbt(
        ["build", "--select", *_selection(), "--indirect-selection", "cautious"],
        db=db, data_dir=data_dir, target=tmp / "target",
    )
    if not res.success:
        failed = [
            f"{r.node.name}: {r.message}"
            for r in getattr(res.result, "results", None) or []
            if str(r.status).lower() in ("error", "fail", "runstatus.error", "teststatus.fail")
        ]
        raise AssertionError(f"dbt build on {data_dir} failed: {res.exception or failed}")
    return db


def _rows(db: Path, sql: str, params: list | None = None) -> list[tuple]:
    # dbt-duckdb keeps its (read-write) database instance open inside this process after an in-process
    # run; a read_only connection would be refused as a "different configuration", so use the default.
    con = duckdb.connect(str(db))
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def _value(db: Path, model: str, subject_id: str, day: str, raw_field: str):
    rows = _rows(
        db,
        f"select value, value_text from {model} where subject_id = ? and day = cast(? as date) and raw_field = ?",
        [subject_id, day, raw_field],
    )
    assert len(rows) <= 1, f"duplicate rows for {subject_id} {day} {raw_field}"
    return rows[0] if rows else None


def _seed(name: str) -> dict[str, dict]:
    with open(REPO / "seeds" / "raw_field_map" / f"{name}.csv", newline="", encoding="utf-8") as f:
        return {r["raw_field"]: r for r in csv.DictReader(f)}


def _convert(seed: dict[str, dict], raw_field: str, raw_value: float) -> float:
    row = seed[raw_field]
    return raw_value * float(row["scale"]) + float(row["offset"])


@pytest.fixture(scope="module")
def real_db(shared_data: Path, tmp_path_factory) -> Path:
    return _build(tmp_path_factory.mktemp("lsifh_real"), shared_data)


@pytest.fixture(scope="module")
def daily() -> pd.DataFrame:
    from conftest import SHARED_DATA

    path = SHARED_DATA / LIFESNAPS_DAILY
    if not path.exists():
        pytest.skip(f"{path} not found")
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def _ifh_csv(shared_data: Path, participant: str, name: str) -> list[dict]:
    with open(shared_data / IFH / participant / "oura" / f"{name}.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


# ----------------------------------------------------------------------------------------------- LifeSnaps

def test_lifesnaps_sleep_duration_ms_to_minutes(real_db, daily):
    seed = _seed("raw_field_map_lifesnaps")
    row = daily[daily["sleep_duration"] != ""].iloc[0]
    raw_ms = float(row["sleep_duration"])
    got = _value(real_db, "stg_lifesnaps__daily", "lifesnaps:" + row["id"], row["date"], "daily.sleep_duration")
    assert got is not None and got[0] == raw_ms  # staged in the raw unit (ms)
    assert seed["daily.sleep_duration"]["metric_id"] == "total_sleep_duration"
    assert math.isclose(_convert(seed, "daily.sleep_duration", got[0]), raw_ms / 60000.0, rel_tol=1e-12)
    # the documented example: 31,260,000 ms in bed = 521 minutes
    assert math.isclose(_convert(seed, "daily.sleep_duration", 31_260_000), 521.0, rel_tol=1e-12)


def test_lifesnaps_steps_of_a_day(real_db, daily):
    worn = daily[(daily["steps"] != "") & (daily["steps"].map(lambda s: s and float(s) > 0))]
    row = worn.iloc[len(worn) // 2]
    got = _value(real_db, "stg_lifesnaps__daily", "lifesnaps:" + row["id"], row["date"], "daily.steps")
    assert got is not None and got[0] == float(row["steps"])
    assert _seed("raw_field_map_lifesnaps")["daily.steps"]["metric_id"] == "steps_taken"


def test_lifesnaps_stress_score_inverted(real_db, daily):
    seed = _seed("raw_field_map_lifesnaps")
    scored = daily[daily["stress_score"].map(lambda s: s != "" and float(s) > 0)]
    row = scored.iloc[0]
    raw = float(row["stress_score"])
    got = _value(real_db, "stg_lifesnaps__daily", "lifesnaps:" + row["id"], row["date"], "daily.stress_score")
    assert got is not None and got[0] == raw
    assert seed["daily.stress_score"]["metric_id"] == "mental_stress"
    assert _convert(seed, "daily.stress_score", raw) == 101 - raw
    # higher Fitbit score (fewer signs of stress) -> lower mental_stress
    assert _convert(seed, "daily.stress_score", 90) < _convert(seed, "daily.stress_score", 60)


def test_lifesnaps_stress_score_zero_is_missing(real_db, daily):
    zero = daily[daily["stress_score"].map(lambda s: s != "" and float(s) == 0)]
    assert len(zero) > 0, "the excerpt has stress_score 0 rows (FORMATS §0.5-like sentinel)"
    for _, row in zero.iterrows():
        assert _value(real_db, "stg_lifesnaps__daily", "lifesnaps:" + row["id"], row["date"], "daily.stress_score") is None


def test_lifesnaps_not_worn_day_has_no_activity_rows(real_db, daily):
    def f(s):
        return float(s) if s != "" else None

    not_worn = daily[
        daily.apply(
            lambda r: f(r["sedentary_minutes"]) == 1440
            and f(r["lightly_active_minutes"]) == 0
            and f(r["moderately_active_minutes"]) == 0
            and f(r["very_active_minutes"]) == 0,
            axis=1,
        )
    ]
    assert len(not_worn) > 0
    fields = [
        "daily.sedentary_minutes", "daily.lightly_active_minutes", "daily.moderately_active_minutes",
        "daily.very_active_minutes", "daily.active_minutes", "daily.calories", "daily.steps", "daily.distance",
    ]
    for _, row in not_worn.iterrows():
        got = _rows(
            real_db,
            "select raw_field from stg_lifesnaps__daily where subject_id = ? and day = cast(? as date) "
            "and raw_field in (select unnest(?))",
            ["lifesnaps:" + row["id"], row["date"], fields],
        )
        assert got == [], f"{row['id']} {row['date']}: {got}"


def test_lifesnaps_active_time_is_sum(real_db, daily):
    row = daily[(daily["lightly_active_minutes"] != "") & (daily["sedentary_minutes"] != "1440")].iloc[0]
    expected = sum(float(row[c]) for c in ("lightly_active_minutes", "moderately_active_minutes", "very_active_minutes"))
    got = _value(real_db, "stg_lifesnaps__daily", "lifesnaps:" + row["id"], row["date"], "daily.active_minutes")
    assert got is not None and got[0] == expected


def test_lifesnaps_text_fields(real_db, daily):
    labels = ["ALERT", "HAPPY", "NEUTRAL", "RESTED/RELAXED", "SAD", "TENSE/ANXIOUS", "TIRED"]
    row = daily[daily["HAPPY"] != ""].iloc[0]
    sid = "lifesnaps:" + row["id"]
    expected_mood = ", ".join(lab for lab in labels if row[lab] == "1.0")
    assert _value(real_db, "stg_lifesnaps__daily", sid, row["date"], "sema.mood") == (None, expected_mood)
    assert _value(real_db, "stg_lifesnaps__daily", sid, row["date"], "sema.TIRED")[0] == float(row["TIRED"])
    assert _value(real_db, "stg_lifesnaps__daily", sid, row["date"], "sema.TENSE/ANXIOUS")[0] == float(row["TENSE/ANXIOUS"])

    ex = daily[daily["activityType"].str.contains(",")].iloc[0]
    names = [n.strip().strip("'\"") for n in ex["activityType"].strip("[]").split(",")]
    got = _value(real_db, "stg_lifesnaps__daily", "lifesnaps:" + ex["id"], ex["date"], "daily.activityType")
    assert got == (None, ", ".join(names))

    mind = daily[daily["mindfulness_session"] == "True"].iloc[0]
    got = _value(real_db, "stg_lifesnaps__daily", "lifesnaps:" + mind["id"], mind["date"], "daily.mindfulness_session")
    assert got == (None, "completed a mindfulness session")
    n_true = int((daily["mindfulness_session"] == "True").sum())
    assert _rows(real_db, "select count(*) from stg_lifesnaps__daily where raw_field = 'daily.mindfulness_session'")[0][0] == n_true

    demo = daily[daily["age"] != ""].iloc[0]
    sid = "lifesnaps:" + demo["id"]
    assert _value(real_db, "stg_lifesnaps__daily", sid, demo["date"], "profile.age") == (None, demo["age"])
    assert _value(real_db, "stg_lifesnaps__daily", sid, demo["date"], "profile.gender") == (None, demo["gender"])
    for bmi_text in daily.loc[daily["bmi"] != "", "bmi"].unique():
        r = daily[daily["bmi"] == bmi_text].iloc[0]
        got = _value(real_db, "stg_lifesnaps__daily", "lifesnaps:" + r["id"], r["date"], "profile.bmi")
        try:
            assert got == (float(bmi_text), None)
        except ValueError:
            assert got == (None, bmi_text)


def test_lifesnaps_dropped_columns(real_db):
    fields = {r[0] for r in _rows(real_db, "select distinct raw_field from stg_lifesnaps__daily")}
    assert not any("scl" in f for f in fields), "scl_avg has wrong dates (FORMATS §2.2) and must not be staged"
    assert not any("_ratio" in f for f in fields), "sleep_*_ratio are not stage minutes (FORMATS §0.7)"


def test_lifesnaps_surveys(real_db, shared_data):
    panas = pd.read_csv(shared_data / LIFESNAPS_SURVEYS / "panas.csv", dtype=str)
    r = panas.iloc[0]
    sid = "lifesnaps:" + r["user_id"]
    assert _value(real_db, "stg_lifesnaps__surveys", sid, r["submitdate"], "panas.positive_affect_score")[0] == float(r["positive_affect_score"])
    assert _value(real_db, "stg_lifesnaps__surveys", sid, r["submitdate"], "panas.negative_affect_score")[0] == float(r["negative_affect_score"])
    n = _rows(real_db, "select count(*) from stg_lifesnaps__surveys where raw_field like 'panas.%'")[0][0]
    assert n == 2 * len(panas)

    pers = pd.read_csv(shared_data / LIFESNAPS_SURVEYS / "personality.csv", dtype=str).iloc[0]
    traits = ["extraversion", "agreeableness", "conscientiousness", "stability", "intellect"]
    expected = ", ".join(f"{t} {int(float(pers[t]))}" for t in traits)
    got = _value(real_db, "stg_lifesnaps__surveys", "lifesnaps:" + pers["user_id"], pers["submitdate"], "personality.ipip_scores")
    assert got == (None, expected)

    stai = pd.read_csv(shared_data / LIFESNAPS_SURVEYS / "stai.csv", dtype=str).iloc[0]
    got = _value(real_db, "stg_lifesnaps__surveys", "lifesnaps:" + stai["user_id"], stai["submitdate"], "stai.stai_stress")
    assert got is not None and got[0] == float(stai["stai_stress"])
    assert "stai.stai_stress" not in _seed("raw_field_map_lifesnaps")


# ----------------------------------------------------------------------------------------------- IFH Affect

def test_ifh_deep_sleep_seconds_to_minutes(real_db, shared_data):
    seed = _seed("raw_field_map_ifh_affect")
    night = _ifh_csv(shared_data, "par_1", "sleep")[0]
    got = _value(real_db, "int_ifh_affect__sleep_unpivoted", "ifh_affect:par_1", night["date"], "sleep.deep")
    assert got is not None and got[0] == float(night["deep"])
    assert seed["sleep.deep"]["metric_id"] == "deep_sleep_duration"
    assert math.isclose(_convert(seed, "sleep.deep", got[0]), float(night["deep"]) / 60.0, rel_tol=1e-12)


def test_ifh_bedtime_start_from_midnight_delta(real_db, shared_data):
    seed = _seed("raw_field_map_ifh_affect")
    nights = _ifh_csv(shared_data, "par_1", "sleep")
    night = next(n for n in nights if int(n["bedtime_start_midnight_delta"]) < 0)
    delta_s = float(night["bedtime_start_midnight_delta"])
    got = _value(real_db, "int_ifh_affect__sleep_unpivoted", "ifh_affect:par_1", night["date"], "sleep.bedtime_start")
    assert got is not None and got[0] == delta_s
    assert math.isclose(_convert(seed, "sleep.bedtime_start", got[0]), delta_s / 60.0, rel_tol=1e-12)
    # FORMATS §4.2 example: -558 s = 23:50:42 the evening before = -9.3 minutes
    assert math.isclose(_convert(seed, "sleep.bedtime_start", -558), -9.3, rel_tol=1e-12)
    end = _value(real_db, "int_ifh_affect__sleep_unpivoted", "ifh_affect:par_1", night["date"], "sleep.bedtime_end")
    assert end[0] == float(night["bedtime_end_midnight_delta"])


def test_ifh_inconsistent_bedtime_rows(real_db, shared_data):
    """par_3 rows whose deltas disagree by one day (FORMATS §4.2): the end on `date` is kept."""
    odd = [
        n for n in _ifh_csv(shared_data, "par_3", "sleep")
        if int(n["bedtime_end_midnight_delta"]) - int(n["bedtime_start_midnight_delta"]) != int(n["duration"])
    ]
    assert len(odd) == 4
    for n in odd:
        s, e, d = (int(n[k]) for k in ("bedtime_start_midnight_delta", "bedtime_end_midnight_delta", "duration"))
        exp_start, exp_end = (e - d, e) if 0 <= e < 86400 else (s, s + d)
        assert 0 <= exp_end < 86400
        got_s = _value(real_db, "int_ifh_affect__sleep_unpivoted", "ifh_affect:par_3", n["date"], "sleep.bedtime_start")
        got_e = _value(real_db, "int_ifh_affect__sleep_unpivoted", "ifh_affect:par_3", n["date"], "sleep.bedtime_end")
        assert (got_s[0], got_e[0]) == (exp_start, exp_end)
        assert got_e[0] - got_s[0] == d
        # stage columns kept on those rows
        assert _value(real_db, "int_ifh_affect__sleep_unpivoted", "ifh_affect:par_3", n["date"], "sleep.deep")[0] == float(n["deep"])


def test_ifh_temperature_delta_null_gives_no_row(real_db, shared_data):
    seen = 0
    for par in ("par_1", "par_3"):
        for n in _ifh_csv(shared_data, par, "sleep"):
            got = _value(real_db, "int_ifh_affect__sleep_unpivoted", f"ifh_affect:{par}", n["date"], "sleep.temperature_delta")
            if n["temperature_delta"] in ("null", ""):
                seen += 1
                assert got is None
                # the rest of the night is still there
                assert _value(real_db, "int_ifh_affect__sleep_unpivoted", f"ifh_affect:{par}", n["date"], "sleep.duration") is not None
            else:
                assert got is not None and math.isclose(got[0], float(n["temperature_delta"]))
    assert seen >= 1


def test_ifh_sleep_row_count(real_db, shared_data):
    for par in ("par_1", "par_3"):
        nights = _ifh_csv(shared_data, par, "sleep")
        n = _rows(real_db, "select count(distinct day) from int_ifh_affect__sleep_unpivoted where subject_id = ?", [f"ifh_affect:{par}"])[0][0]
        assert n == len({x["date"] for x in nights})


def test_ifh_par21_activity(real_db, shared_data):
    day = _ifh_csv(shared_data, "par_21", "activity")[0]
    sid = "ifh_affect:par_21"
    assert _value(real_db, "stg_ifh_affect__activity", sid, day["date"], "activity.steps")[0] == float(day["steps"])
    assert _value(real_db, "stg_ifh_affect__activity", sid, day["date"], "activity.cal_total")[0] == float(day["cal_total"])
    active = sum(float(day[k]) for k in ("low", "medium", "high"))
    assert _value(real_db, "stg_ifh_affect__activity", sid, day["date"], "activity.active_minutes")[0] == active
    seed = _seed("raw_field_map_ifh_affect")
    assert seed["activity.steps"]["metric_id"] == "steps_taken"
    assert seed["activity.daily_movement"]["metric_id"] == "distance_traveled"


# ----------------------------------------------------------------------------------------------- contract

def test_contract_and_seed_coverage(real_db):
    maps = {**_seed("raw_field_map_lifesnaps"), **_seed("raw_field_map_ifh_affect")}
    for model in MODELS:
        cols = _rows(real_db, f"select column_name, column_type from (describe {model})")
        assert cols == [
            ("dataset", "VARCHAR"), ("subject_id", "VARCHAR"), ("day", "DATE"),
            ("raw_field", "VARCHAR"), ("value", "DOUBLE"), ("value_text", "VARCHAR"),
        ], model
        # no NULL-value rows, never both value and text
        bad = _rows(real_db, f"select count(*) from {model} where (value is null) = (value_text is null)")[0][0]
        assert bad == 0, model
        staged = {r[0] for r in _rows(real_db, f"select distinct raw_field from {model}")}
        assert staged - set(maps) <= UNMAPPED, f"{model}: unmapped raw fields {staged - set(maps) - UNMAPPED}"
    # every mapped field has data in the excerpt
    staged_all = {r[0] for m in MODELS for r in _rows(real_db, f"select distinct raw_field from {m}")}
    assert set(maps) - staged_all == set()


def test_models_build_empty_without_data(tmp_path):
    empty = tmp_path / "data"
    empty.mkdir()
    db = _build(tmp_path, empty)
    for model in MODELS:
        assert _rows(db, f"select count(*) from {model}")[0][0] == 0, model


def test_surveys_each_file_optional(shared_data, tmp_path):
    data = tmp_path / "data"
    target = data / LIFESNAPS_SURVEYS
    target.mkdir(parents=True)
    (target / "panas.csv").symlink_to(shared_data / LIFESNAPS_SURVEYS / "panas.csv")
    db = _build(tmp_path, data)
    fields = {r[0] for r in _rows(db, "select distinct raw_field from stg_lifesnaps__surveys")}
    assert fields == {"panas.positive_affect_score", "panas.negative_affect_score"}
    assert _rows(db, "select count(*) from stg_lifesnaps__daily")[0][0] == 0
