"""A user's wide daily export (README "Your data"): values land in metric_values in catalog terms,
and cells that cannot be right — text in a numeric metric, a value outside the physical bounds —
are kept in metric_values_rejected with the reason, not loaded (DESIGN.md §2)."""

from __future__ import annotations

import json

import duckdb

from conftest import run_dbt

CSV = """participant_id,date,Steps taken,HRV,resting pulse,Lifelog
me,2024-01-01,8000,45,60,slept badly
me,2024-01-02,abc,47,61,
me,2024-01-03,9000,2000,59,
"""


def test_wide_export_values_and_rejections(tmp_path):
    src = tmp_path / "export.csv"
    src.write_text(CSV)
    empty = tmp_path / "data"
    empty.mkdir()
    db = tmp_path / "wag.duckdb"
    res = run_dbt(["build"], db=db, data_dir=empty, target=tmp_path / "target",
                  extra_vars=json.dumps({"wide_sources": [{"dataset": "mydata", "path": str(src)}]}))
    assert res.success, res.exception
    con = duckdb.connect(str(db), read_only=True)
    try:
        loaded = {(m, str(d)): (v, t) for m, d, v, t in con.execute(
            "select metric_id, day, value, value_text from metric_values where subject_id = 'mydata:me'").fetchall()}
        rejected = {(m, str(d)): r for m, d, r in con.execute(
            "select metric_id, day, rejection_reason from metric_values_rejected").fetchall()}
    finally:
        con.close()
    assert loaded[("steps_taken", "2024-01-01")] == (8000.0, None)
    assert loaded[("hrv_rmssd", "2024-01-02")] == (47.0, None)            # "HRV" is an alias
    assert loaded[("resting_heart_rate", "2024-01-03")] == (59.0, None)    # "resting pulse" too
    assert loaded[("lifelog", "2024-01-01")] == (None, "slept badly")      # a text metric keeps text
    assert ("steps_taken", "2024-01-02") not in loaded
    assert rejected[("steps_taken", "2024-01-02")] == "text abc in a numeric metric"
    assert ("hrv_rmssd", "2024-01-03") not in loaded
    assert rejected[("hrv_rmssd", "2024-01-03")].startswith("above physical_max")
