"""GLOBEM dep_weekly.csv (issue 9 item 7): each instrument on its own scale — the single PHQ-4 items
0-3 as written (not doubled into the 0-6 sub-score range), BDI-II 0-63, the dep flag as a category.
The input is written by the test in GLOBEM's INS-W_1 shape (FORMATS.md §3.3)."""

from __future__ import annotations

import duckdb

from conftest import run_dbt


def test_dep_weekly_instruments_keep_their_scales(tmp_path):
    survey = tmp_path / "data" / "globem" / "INS-W_1" / "SurveyData"
    survey.mkdir(parents=True)
    (survey / "dep_weekly.csv").write_text(
        "pid,date,feel_anxious,feel_depressed,BDI2,dep\n"
        "INS-W_901,2018-04-04,3.0,1.0,,\n"
        "INS-W_901,2018-04-11,2.0,0.0,,\n"
        "INS-W_901,2018-06-10,,,40.0,True\n")
    db = tmp_path / "wag.duckdb"
    res = run_dbt(["build"], db=db, data_dir=tmp_path / "data", target=tmp_path / "target")
    assert res.success, res.exception
    con = duckdb.connect(str(db), read_only=True)
    try:
        staged = {(f, str(d)): (v, t) for f, d, v, t in con.execute(
            "select raw_field, day, value, value_text from stg_globem__ema").fetchall()}
        mapped = {(m, str(d)): v for m, d, v in con.execute(
            "select metric_id, day, value from metric_values where subject_id like 'globem:%'").fetchall()}
    finally:
        con.close()
    assert staged[("dep_weekly.feel_anxious", "2018-04-04")] == (3.0, None)
    assert staged[("dep_weekly.BDI2", "2018-06-10")] == (40.0, None)
    assert staged[("dep_weekly.dep", "2018-06-10")] == (None, "true")
    assert mapped[("anxiety", "2018-04-04")] == 3.0 and mapped[("anxiety", "2018-04-11")] == 2.0
    assert mapped[("depression", "2018-04-04")] == 1.0
    assert max(mapped.values()) <= 3.0       # nothing rescaled, and BDI-II (0-63) is not put into a 0-6 metric


def _ema_subjects(tmp_path, mapping: str | None) -> dict[str, list[str]]:
    for study, day in (("INS-W_1", "2018-04-04"), ("INS-W-sample_2", "2019-04-10")):
        survey = tmp_path / "data" / "globem" / study / "SurveyData"
        survey.mkdir(parents=True, exist_ok=True)
        (survey / "ema.csv").write_text(f"pid,date,negative_affect_EMA\nINS-W_500,{day},7.0\n")
    if mapping is not None:
        (tmp_path / "data" / "globem" / "subject_map.csv").write_text(mapping)
    db = tmp_path / "wag.duckdb"
    res = run_dbt(["build", "--select", "stg_globem__ema"], db=db, data_dir=tmp_path / "data", target=tmp_path / "target")
    assert res.success, res.exception
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute("select subject_id, day from stg_globem__ema order by day").fetchall()
    finally:
        con.close()
    out: dict[str, list[str]] = {}
    for s, d in rows:
        out.setdefault(s, []).append(str(d))
    return out


def test_same_pid_in_two_studies_is_two_subjects(tmp_path):
    assert _ema_subjects(tmp_path, None) == {"globem:INS-W_1/INS-W_500": ["2018-04-04"],
                                             "globem:INS-W_2/INS-W_500": ["2019-04-10"]}


def test_mapping_file_joins_the_same_person(tmp_path):
    mapping = "study,pid,subject\nINS-W_1,INS-W_500,person_17\nINS-W_2,INS-W_500,person_17\n"
    assert _ema_subjects(tmp_path, mapping) == {"globem:person_17": ["2018-04-04", "2019-04-10"]}
