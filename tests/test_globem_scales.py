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
