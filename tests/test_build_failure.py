"""A corrupt raw file stops `dbt build` with a message naming the file, and the tables of the
previous successful build stay queryable (DESIGN.md §1; "bad input loses nothing").

The raw files are copied to a temporary folder first: ../shared is read-only."""

from __future__ import annotations

import shutil

import duckdb
import pytest

from conftest import run_dbt


def _messages(res) -> str:
    parts = [str(res.exception or "")]
    for r in getattr(res.result, "results", None) or []:
        if str(r.status) in ("error", "fail"):
            parts.append(f"{r.node.name}: {r.message}")
    return "\n".join(parts)


def _rows(db) -> int:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute("select count(*) from metric_values where subject_id = 'pmdata:p01'").fetchone()[0]
    finally:
        con.close()


@pytest.fixture(scope="module")
def workspace(shared_data, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("corrupt")
    data = tmp / "data"
    shutil.copytree(shared_data / "pmdata" / "p01", data / "pmdata" / "p01")
    db = tmp / "wag.duckdb"
    res = run_dbt(["build"], db=db, data_dir=data, target=tmp / "target")
    assert res.success, _messages(res)
    return tmp, data, db, _rows(db)


def test_truncated_json_names_the_file_and_keeps_tables(workspace):
    tmp, data, db, n_before = workspace
    sleep = data / "pmdata/p01/fitbit/sleep.json"
    original = sleep.read_bytes()
    try:
        sleep.write_bytes(original[: len(original) // 3])
        res = run_dbt(["build"], db=db, data_dir=data, target=tmp / "target")
        assert not res.success
        msg = _messages(res)
        assert "sleep.json" in msg and "Malformed JSON" in msg
        assert _rows(db) == n_before > 0
    finally:
        sleep.write_bytes(original)


def test_csv_missing_column_names_the_file_and_keeps_tables(workspace):
    tmp, data, db, n_before = workspace
    wellness = data / "pmdata/p01/pmsys/wellness.csv"
    original = wellness.read_text()
    try:
        lines = original.splitlines()
        header = lines[0].split(",")
        i = header.index("fatigue")
        # drop the 'fatigue' field from every line (the file has no quoted commas before it)
        wellness.write_text("\n".join(",".join(f for j, f in enumerate(ln.split(",")) if j != i) for ln in lines) + "\n")
        res = run_dbt(["build"], db=db, data_dir=data, target=tmp / "target")
        assert not res.success
        msg = _messages(res)
        assert "wellness.csv" in msg and "missing column(s) fatigue" in msg
        assert _rows(db) == n_before > 0
    finally:
        wellness.write_text(original)
