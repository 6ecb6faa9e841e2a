"""GLOBEM staging models and the generic wide daily source (DESIGN.md §2; FORMATS.md §3, §0.4, §5;
../shared/data/wag_processed/README.md).

The models, the GLOBEM field-map seed and the metric catalog are built with ``run_dbt``
(tests/conftest.py) into temporary DuckDB files: once on the real excerpts in ../shared/data with the
two WAG processed wide tables (plus a small synthetic wide CSV written here) as ``wide_sources``, and
once on an empty data folder with no wide source (every model must build, empty, with the contract
columns). Expected values are computed here from the raw CSVs with pandas / the csv module, never
copied from the SQL output.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from conftest import REPO, run_dbt

GLOBEM_MODELS = [
    "stg_globem__sleep",
    "stg_globem__steps",
    "stg_globem__location",
    "stg_globem__screen",
    "stg_globem__calls",
    "stg_globem__ema",
]
WIDE_MODELS = ["stg_wide__daily_metrics", "stg_wide__unmapped_columns"]
CONTRACT = ["dataset", "subject_id", "day", "raw_field", "value", "value_text"]

SLP = "f_slp:fitbit_sleep_summary_rapids_"
STP = "f_steps:fitbit_steps_intraday_rapids_"
CALL = "f_call:phone_calls_rapids_"

# A synthetic wide source: one unknown column, catalog spellings of the README, a timestamp, text,
# a pandas 'nan' and a duplicated participant-day.
SYNTHETIC_CSV = (
    "participant_id,date,Stress,circadian routine,The Radius of Gyration,Foo Bar,Bedtime start time,Exercise,Steps taken\n"
    "p1,2021-03-02,3,0.8,120.5,7,2021-03-01 23:30:00,\"['Walk']\",1e3\n"
    "p1,2021-03-03,,,,,2021-03-03T00:45:00.000,,nan\n"
    "p1,2021-03-03,5,,,,,Run,\n"
)


def _selection() -> list[str]:
    return ["path:models/staging/globem", "path:models/staging/wide", "raw_field_map_globem", "metric_catalog"]


def _build(tmp: Path, data_dir: Path, wide_sources: list[dict] | None) -> Path:
    db = tmp / "wag.duckdb"
    extra = json.dumps({"wide_sources": wide_sources}) if wide_sources is not None else None
    # cautious: do not pull in tests of other helpers' models that merely reference metric_catalog
    res = run_dbt(
        ["build", "--indirect-selection", "cautious", "--select", *_selection()],
        db=db, data_dir=data_dir, target=tmp / "target", extra_vars=extra,
    )
    assert res.success, f"dbt build on {data_dir} failed: {res.exception or res.result}"
    return db


def _query(db: Path, sql: str, params: list | None = None) -> pd.DataFrame:
    # dbt-duckdb keeps its read-write instance open in this process after an in-process run, so a
    # read_only connection would be refused; use the default mode.
    con = duckdb.connect(str(db))
    try:
        return con.execute(sql, params or []).df()
    finally:
        con.close()


def _one(db: Path, model: str, subject_id: str, day: str, raw_field: str):
    df = _query(
        db,
        f"select value, value_text from {model} where subject_id = ? and day = cast(? as date) and raw_field = ?",
        [subject_id, day, raw_field],
    )
    assert len(df) <= 1, f"duplicate rows for {subject_id} {day} {raw_field}"
    return None if df.empty else (df.value.iloc[0], df.value_text.iloc[0])


def _globem_csv(shared: Path, name: str) -> pd.DataFrame:
    frames = []
    for p in sorted((shared / "globem").glob(f"*/{name}")):
        frame = pd.read_csv(p, low_memory=False)
        # subjects are keyed by study and pid (issue 9 item 7); sample folders name the PhysioNet study
        study = p.relative_to(shared / "globem").parts[0].replace("INS-W-sample_", "INS-W_")
        frame["pid"] = study + "/" + frame["pid"].astype(str).str.strip()
        frames.append(frame)
    assert frames, f"no globem/*/{name} under {shared}"
    df = pd.concat(frames, ignore_index=True)
    df["date"] = pd.to_datetime(df["date"])
    return df


def _seed() -> dict[str, dict]:
    with open(REPO / "seeds" / "raw_field_map" / "raw_field_map_globem.csv", newline="", encoding="utf-8") as f:
        return {r["raw_field"]: r for r in csv.DictReader(f)}


def _iso(ts) -> str:
    return pd.Timestamp(ts).strftime("%Y-%m-%d")


@pytest.fixture(scope="module")
def synthetic_csv(tmp_path_factory) -> Path:
    p = tmp_path_factory.mktemp("wide_src") / "synthetic.csv"
    p.write_text(SYNTHETIC_CSV, encoding="utf-8")
    return p


@pytest.fixture(scope="module")
def wide_sources(shared_data: Path, synthetic_csv: Path) -> list[dict]:
    wp = shared_data / "wag_processed"
    return [
        {"dataset": "wag_ifh", "path": str(wp / "ifh_df.csv")},
        {"dataset": "wag_lifesnaps", "path": str(wp / "lifesnap_df.csv")},
        {"dataset": "synthetic", "path": str(synthetic_csv)},
    ]


@pytest.fixture(scope="module")
def real_db(shared_data: Path, wide_sources: list[dict], tmp_path_factory) -> Path:
    if not (REPO / "seeds" / "metric_catalog.csv").exists():
        pytest.skip("seeds/metric_catalog.csv not written yet")
    return _build(tmp_path_factory.mktemp("globem_wide_real"), shared_data, wide_sources)


@pytest.fixture(scope="module")
def empty_db(tmp_path_factory) -> Path:
    if not (REPO / "seeds" / "metric_catalog.csv").exists():
        pytest.skip("seeds/metric_catalog.csv not written yet")
    tmp = tmp_path_factory.mktemp("globem_wide_empty")
    data = tmp / "data"
    data.mkdir()
    return _build(tmp, data, None)


# ----------------------------------------------------------------------------------------- GLOBEM


def test_sleep_duration_of_row_d_lands_on_d_plus_1(real_db: Path, shared_data: Path):
    sl = _globem_csv(shared_data, "FeatureData/sleep.csv")
    col = SLP + "sumdurationinbedmain:allday"
    real = sl[(sl[SLP + "countepisodemain:allday"] >= 1) & sl[col].notna()]
    assert len(real) > 100
    row = real.iloc[10]
    subject = f"globem:{row.pid}"
    next_day = _iso(row.date + pd.Timedelta(days=1))
    got = _one(real_db, "stg_globem__sleep", subject, next_day, "sleep.fitbit_sleep_summary_rapids_sumdurationinbedmain")
    assert got is not None and got[0] == pytest.approx(float(row[col]))
    # every duration row of the model equals the raw value of the previous row date
    model = _query(
        real_db,
        "select subject_id, day, value from stg_globem__sleep "
        "where raw_field = 'sleep.fitbit_sleep_summary_rapids_sumdurationasleepmain'",
    )
    src = sl[(sl[SLP + "countepisodemain:allday"] >= 1) & sl[SLP + "sumdurationasleepmain:allday"].notna()]
    expected = {
        (f"globem:{p}", _iso(d + pd.Timedelta(days=1))): float(v)
        for p, d, v in zip(src.pid, src.date, src[SLP + "sumdurationasleepmain:allday"])
    }
    got_map = {(r.subject_id, _iso(r.day)): r.value for r in model.itertuples(index=False)}
    assert got_map == pytest.approx(expected)


def test_no_main_sleep_gives_no_duration_rows(real_db: Path, shared_data: Path):
    sl = _globem_csv(shared_data, "FeatureData/sleep.csv")
    none = sl[sl[SLP + "countepisodemain:allday"] == 0]
    assert len(none) > 0 and (none[SLP + "sumdurationinbedmain:allday"] == 0).all()
    for r in none.itertuples(index=False):
        got = _one(
            real_db, "stg_globem__sleep", f"globem:{r.pid}", _iso(r.date + pd.Timedelta(days=1)),
            "sleep.fitbit_sleep_summary_rapids_sumdurationinbedmain",
        )
        assert got is None, f"sentinel 0 of {r.pid} {r.date} was staged"


def test_lastwaketime_stays_on_its_row_date(real_db: Path, shared_data: Path):
    sl = _globem_csv(shared_data, "FeatureData/sleep.csv")
    col = SLP + "lastwaketimemain:allday"
    src = sl[sl[col].notna()]
    model = _query(
        real_db,
        "select subject_id, day, value from stg_globem__sleep "
        "where raw_field = 'sleep.fitbit_sleep_summary_rapids_lastwaketimemain'",
    )
    expected = {(f"globem:{p}", _iso(d)): float(v) for p, d, v in zip(src.pid, src.date, src[col])}
    got = {(r.subject_id, _iso(r.day)): r.value for r in model.itertuples(index=False)}
    assert got == pytest.approx(expected)
    # FORMATS §0.4 identity on one ordinary night: in bed(D) = 1440 - firstbed(D) + lastwake(D+1)
    ordinary = sl[sl[SLP + "countepisodemain:allday"] == 1].iloc[5]
    nxt = sl[(sl.pid == ordinary.pid) & (sl.date == ordinary.date + pd.Timedelta(days=1))].iloc[0]
    assert ordinary[SLP + "sumdurationinbedmain:allday"] == pytest.approx(
        1440 - ordinary[SLP + "firstbedtimemain:allday"] + nxt[col], abs=2
    )


def test_bedtime_conversion_for_one_night(real_db: Path, shared_data: Path):
    sl = _globem_csv(shared_data, "FeatureData/sleep.csv")
    col = SLP + "firstbedtimemain:allday"
    seed = _seed()["sleep.fitbit_sleep_summary_rapids_firstbedtimemain"]
    assert seed["metric_id"] == "bedtime_start_time"
    after_midnight = sl[(sl[col] > 1440) & (sl[SLP + "countepisodemain:allday"] >= 1)].iloc[0]
    before_midnight = sl[(sl[col] < 1440) & (sl[SLP + "countepisodemain:allday"] >= 1)].iloc[0]
    for row in (after_midnight, before_midnight):
        wake_day = _iso(row.date + pd.Timedelta(days=1))
        got = _one(real_db, "stg_globem__sleep", f"globem:{row.pid}", wake_day,
                   "sleep.fitbit_sleep_summary_rapids_firstbedtimemain")
        assert got is not None
        catalog_value = got[0] * float(seed["scale"]) + float(seed["offset"])
        # minutes after 00:00 of D -> minutes relative to midnight of the wake-up day D+1
        assert catalog_value == pytest.approx(float(row[col]) - 1440)
    assert float(after_midnight[col]) - 1440 > 0 and float(before_midnight[col]) - 1440 < 0


def test_steps_of_one_day(real_db: Path, shared_data: Path):
    st = _globem_csv(shared_data, "FeatureData/steps.csv")
    row = st[st[STP + "sumsteps:allday"].notna()].iloc[20]
    for feature in ("sumsteps", "sumdurationactivebout", "sumdurationsedentarybout"):
        got = _one(real_db, "stg_globem__steps", f"globem:{row.pid}", _iso(row.date),
                   f"steps.fitbit_steps_intraday_rapids_{feature}")
        assert got is not None and got[0] == pytest.approx(float(row[f"{STP}{feature}:allday"]))
    n_model = _query(real_db, "select count(*) as n from stg_globem__steps "
                              "where raw_field = 'steps.fitbit_steps_intraday_rapids_sumsteps'").n.iloc[0]
    assert n_model == int((st[STP + "sumsteps:allday"].fillna(0) > 0).sum())


def test_calls_count_excludes_missed_and_empty_days_give_no_rows(real_db: Path, shared_data: Path):
    ca = _globem_csv(shared_data, "FeatureData/call.csv")
    have = ca[ca[CALL + "incoming_count:allday"].notna() & ca[CALL + "outgoing_count:allday"].notna()]
    row = have[have[CALL + "missed_count:allday"] > 0].iloc[0]
    got = _one(real_db, "stg_globem__calls", f"globem:{row.pid}", _iso(row.date),
               "call.phone_calls_rapids_incoming_plus_outgoing_count")
    assert got[0] == pytest.approx(row[CALL + "incoming_count:allday"] + row[CALL + "outgoing_count:allday"])
    n = _query(real_db, "select count(*) as n from stg_globem__calls "
                        "where raw_field = 'call.phone_calls_rapids_incoming_plus_outgoing_count'").n.iloc[0]
    assert n == len(have) < len(ca)


def test_ema_and_bfi(real_db: Path, shared_data: Path):
    ema = _globem_csv(shared_data, "SurveyData/ema.csv")
    pss = ema[ema["pss4_EMA"].notna()].iloc[0]
    assert _one(real_db, "stg_globem__ema", f"globem:{pss.pid}", _iso(pss.date), "ema.pss4_EMA")[0] == pytest.approx(
        pss["pss4_EMA"])
    n_neg = _query(real_db, "select count(*) as n from stg_globem__ema where raw_field = 'ema.negative_affect_EMA'").n.iloc[0]
    assert n_neg == int(ema["negative_affect_EMA"].notna().sum())
    weekly = _globem_csv(shared_data, "SurveyData/dep_weekly.csv")
    fa = weekly[weekly.get("feel_anxious").notna()].iloc[0]
    assert _one(real_db, "stg_globem__ema", f"globem:{fa.pid}", _iso(fa.date),
                "dep_weekly.feel_anxious")[0] == pytest.approx(fa["feel_anxious"])
    pre = _globem_csv(shared_data, "SurveyData/pre.csv").iloc[0]
    text = _one(real_db, "stg_globem__ema", f"globem:{pre.pid}", _iso(pre.date), "pre.BFI10")[1]
    for trait in ("extroversion", "agreeableness", "conscientiousness", "neuroticism", "openness"):
        assert f"{trait} {pre[f'BFI10_{trait}_PRE']:g}" in text


def test_contract_shape_and_seed_coverage(real_db: Path):
    seed = _seed()
    staged = set()
    for m in GLOBEM_MODELS:
        cols = _query(real_db, f"select * from {m} limit 0").columns.tolist()
        assert cols == CONTRACT, m
        staged |= set(_query(real_db, f"select distinct raw_field from {m}").raw_field)
        dups = _query(real_db, f"select count(*) as n from (select subject_id, day, raw_field from {m} "
                               f"group by all having count(*) > 1)").n.iloc[0]
        assert dups == 0, m
    assert set(seed) <= staged, f"seed rows never staged: {set(seed) - staged}"
    catalog = set(pd.read_csv(REPO / "seeds" / "metric_catalog.csv").metric_id)
    assert {r["metric_id"] for r in seed.values()} <= catalog


# ------------------------------------------------------------------------------------------- wide


def test_wide_steps_of_one_participant_day(real_db: Path, shared_data: Path):
    df = pd.read_csv(shared_data / "wag_processed" / "lifesnap_df.csv", dtype=str, keep_default_na=False)
    row = df[df["Steps taken"] != ""].iloc[100]
    got = _query(
        real_db,
        "select metric_id, value from stg_wide__daily_metrics where subject_id = ? and day = cast(? as date) "
        "and raw_field = 'Steps taken'",
        [f"wag_lifesnaps:{row.participant_id}", row.date],
    )
    assert len(got) == 1
    assert got.metric_id.iloc[0] == "steps_taken"
    assert got.value.iloc[0] == pytest.approx(float(row["Steps taken"]))


def test_wide_duplicated_ifh_key_panas_is_mean(real_db: Path, shared_data: Path):
    df = pd.read_csv(shared_data / "wag_processed" / "ifh_df.csv")
    dup = df[df.duplicated(["participant_id", "date"], keep=False)]
    assert dup[["participant_id", "date"]].drop_duplicates().shape[0] == 95
    # a duplicated key whose PANAS answers differ
    varying = dup.groupby(["participant_id", "date"])["PANAS positive affect"].nunique()
    pid, day = varying[varying > 1].index[0]
    expected = dup[(dup.participant_id == pid) & (dup.date == day)]["PANAS positive affect"].mean()
    got = _one(real_db, "stg_wide__daily_metrics", f"wag_ifh:{pid}", day, "PANAS positive affect")
    assert got[0] == pytest.approx(expected)
    n = _query(real_db, "select count(*) as n from stg_wide__daily_metrics where dataset = 'wag_ifh' "
                        "and raw_field = 'PANAS positive affect'").n.iloc[0]
    assert n == df[df["PANAS positive affect"].notna()][["participant_id", "date"]].drop_duplicates().shape[0]


def test_wide_headers_resolve_and_unmapped_are_listed(real_db: Path, shared_data: Path):
    resolved = _query(real_db, "select distinct dataset, raw_field, metric_id from stg_wide__daily_metrics")
    by = {(r.dataset, r.raw_field): r.metric_id for r in resolved.itertuples(index=False)}
    assert by[("synthetic", "Stress")] == "mental_stress"
    assert by[("synthetic", "circadian routine")] == "circadian_rhythm_patterns"
    assert by[("synthetic", "The Radius of Gyration")] == "radius_of_gyration"
    assert by[("wag_ifh", "HRV RMSSD")] == "hrv_rmssd"
    assert by[("wag_ifh", "Barometric pressure")] == "barometric_pressure"
    # every populated column of the WAG tables resolves (none of them is unmapped)
    unmapped = _query(real_db, "select dataset, column_name, n_values from stg_wide__unmapped_columns")
    assert {(r.dataset, r.column_name, r.n_values) for r in unmapped.itertuples(index=False)} == {("synthetic", "Foo Bar", 1)}
    for name in ("ifh_df.csv", "lifesnap_df.csv"):
        df = pd.read_csv(shared_data / "wag_processed" / name, dtype=str, keep_default_na=False)
        ds = "wag_ifh" if name.startswith("ifh") else "wag_lifesnaps"
        populated = {c for c in df.columns[2:] if (df[c].str.strip() != "").any()}
        assert populated == {rf for (d, rf) in by if d == ds}, name


def test_wide_value_typing(real_db: Path, shared_data: Path):
    # synthetic: timestamps -> minutes relative to midnight of `day`; text kept; 'nan' missing; 1e3 numeric
    assert _one(real_db, "stg_wide__daily_metrics", "synthetic:p1", "2021-03-02", "Bedtime start time")[0] == pytest.approx(-30)
    assert _one(real_db, "stg_wide__daily_metrics", "synthetic:p1", "2021-03-03", "Bedtime start time")[0] == pytest.approx(45)
    assert _one(real_db, "stg_wide__daily_metrics", "synthetic:p1", "2021-03-02", "Exercise")[1] == "['Walk']"
    assert _one(real_db, "stg_wide__daily_metrics", "synthetic:p1", "2021-03-02", "Steps taken")[0] == pytest.approx(1000)
    assert _one(real_db, "stg_wide__daily_metrics", "synthetic:p1", "2021-03-03", "Steps taken") is None
    assert _one(real_db, "stg_wide__daily_metrics", "synthetic:p1", "2021-03-03", "Stress")[0] == pytest.approx(5)
    # lifesnaps: a real bedtime, the text column Mood and the mixed Step goal
    df = pd.read_csv(shared_data / "wag_processed" / "lifesnap_df.csv", dtype=str, keep_default_na=False)
    row = df[df["Bedtime start time"] != ""].iloc[0]
    start = pd.Timestamp(row["Bedtime start time"])
    expected = (start - pd.Timestamp(row.date)).total_seconds() / 60
    got = _one(real_db, "stg_wide__daily_metrics", f"wag_lifesnaps:{row.participant_id}", row.date, "Bedtime start time")
    assert got[0] == pytest.approx(expected)
    mood = df[df["Mood"] != ""].iloc[0]
    got = _one(real_db, "stg_wide__daily_metrics", f"wag_lifesnaps:{mood.participant_id}", mood.date, "Mood")
    assert pd.isna(got[0]) and got[1] == mood["Mood"].strip()
    no_goal = df[df["Step goal"] == "NO_GOAL"].iloc[0]
    got = _one(real_db, "stg_wide__daily_metrics", f"wag_lifesnaps:{no_goal.participant_id}", no_goal.date, "Step goal")
    assert got[1] == "NO_GOAL"


# ------------------------------------------------------------------------------------------ empty


def test_empty_data_dir_and_no_wide_source_build_empty(empty_db: Path):
    for m in GLOBEM_MODELS:
        df = _query(empty_db, f"select * from {m}")
        assert df.columns.tolist() == CONTRACT and df.empty, m
    df = _query(empty_db, "select * from stg_wide__daily_metrics")
    assert df.columns.tolist() == ["dataset", "subject_id", "day", "raw_field", "metric_id", "value", "value_text"]
    assert df.empty
    df = _query(empty_db, "select * from stg_wide__unmapped_columns")
    assert df.columns.tolist() == ["dataset", "column_name", "n_values"] and df.empty
