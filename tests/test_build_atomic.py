"""Atomic builds (issue 9 item 2), the data-folder check (item 5) and the build-side lock (item 4).

A build that fails — a corrupt raw file, or a process killed mid-build — leaves the previous
warehouse file as it was: every table, staging included, with the same rows. Inputs are PMData
files of one participant copied to a temporary folder (../shared is read-only).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from wag_cli.cli import app

FILES = ["fitbit/sleep.json", "fitbit/resting_heart_rate.json", "fitbit/sedentary_minutes.json",
         "pmsys/wellness.csv"]


def _table_counts(db: Path) -> dict[str, int]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        names = [r[0] for r in con.execute(
            "select table_name from information_schema.tables where table_type = 'BASE TABLE'").fetchall()]
        return {n: con.execute(f'select count(*) from "{n}"').fetchone()[0] for n in names}
    finally:
        con.close()


@pytest.fixture(scope="module")
def small(shared_data, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("atomic")
    data = tmp / "data"
    for f in FILES:
        (data / "pmdata" / "p01" / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(shared_data / "pmdata" / "p01" / f, data / "pmdata" / "p01" / f)
    db = tmp / "wh" / "wag.duckdb"
    env = {"WAG_DB": str(db), "WAG_DATA_DIR": str(data), "DO_NOT_TRACK": "1"}
    res = CliRunner().invoke(app, ["build"], env=env)
    assert res.exit_code == 0, res.output
    counts = _table_counts(db)
    assert counts["stg_pmdata__sleep"] > 0 and counts["metric_values"] > 0
    return tmp, data, db, env, counts


def test_failed_build_keeps_every_table(small):
    tmp, data, db, env, before = small
    sleep = data / "pmdata/p01/fitbit/sleep.json"
    original = sleep.read_bytes()
    # a second, valid wellness row makes the staging model change if it were rebuilt
    try:
        sleep.write_bytes(original[: len(original) // 2])      # truncated JSON: the build fails
        res = CliRunner().invoke(app, ["build"], env=env)
        assert res.exit_code == 1
        assert "sleep.json" in res.output and "previous successful build are unchanged" in res.output
        assert _table_counts(db) == before
        assert not list(db.parent.glob(".*.build*")), "the staging folder is removed"
    finally:
        sleep.write_bytes(original)


def test_killed_build_keeps_the_old_file(small):
    tmp, data, db, env, before = small
    mtime = db.stat().st_mtime_ns
    wellness = data / "pmdata/p01/pmsys/wellness.csv"      # a new modification time: the build runs dbt
    st = wellness.stat()
    os.utime(wellness, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    proc = subprocess.Popen([sys.executable, "-c", "from wag_cli.cli import app; app(['build'])"],
                            env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    staging = db.parent / f".{db.name}.build" / db.name
    deadline = time.monotonic() + 120
    while not staging.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
    assert staging.exists(), "the build writes into its staging file"
    time.sleep(1.0)
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)
    assert db.stat().st_mtime_ns == mtime
    assert _table_counts(db) == before
    # the next build removes the dead build's folder and succeeds (incremental: the same data, so no
    # subject changed; every table but that list of changed subjects is as before)
    res = CliRunner().invoke(app, ["build"], env=env)
    assert res.exit_code == 0, res.output
    assert "Incremental: 0 of 1 subject had" in res.output
    assert not staging.parent.exists()
    after = _table_counts(db)
    assert after.pop("int_changed_subjects") == 0 and before["int_changed_subjects"] == 1
    assert after == {k: v for k, v in before.items() if k != "int_changed_subjects"}
    # once more: no file and no setting changed since that complete build, so it stops before dbt
    mtime = db.stat().st_mtime_ns
    res = CliRunner().invoke(app, ["build"], env=env)
    assert res.exit_code == 0, res.output
    assert "Up to date: no data file and no setting changed" in res.output
    assert "dbt build passed" not in res.output
    assert db.stat().st_mtime_ns == mtime


def test_a_second_build_while_one_runs_is_refused(small):
    """The staging folder names its build's PID; while that process runs, another build of the same
    warehouse stops with that PID and the way out, and touches nothing."""
    tmp, data, db, env, before = small
    mtime = db.stat().st_mtime_ns
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    folder = db.parent / f".{db.name}.build"
    try:
        folder.mkdir()
        (folder / "owner.pid").write_text(str(holder.pid))
        res = CliRunner().invoke(app, ["build"], env=env)
        assert res.exit_code != 0
        assert f"another wag build (PID {holder.pid})" in res.output and "retry" in res.output
        assert folder.is_dir() and db.stat().st_mtime_ns == mtime
    finally:
        holder.kill()
        holder.wait(30)
    # once that process is gone its folder is stale: the next build removes it and runs
    res = CliRunner().invoke(app, ["build"], env=env)
    assert res.exit_code == 0, res.output
    assert not folder.exists()


@pytest.mark.parametrize("layout, needle", [
    ("too_deep", "did you mean its parent"),
    ("too_high", "did you mean"),
    ("empty", "it holds: nothing"),
])
def test_data_folder_without_datasets_is_an_error(tmp_path, layout, needle):
    root = tmp_path / "d"
    if layout == "too_deep":
        (root / "pmdata" / "p01").mkdir(parents=True)
        folder = root / "pmdata"
    elif layout == "too_high":
        (root / "export" / "globem").mkdir(parents=True)
        folder = root
    else:
        root.mkdir()
        folder = root
    db = tmp_path / "wag.duckdb"
    res = CliRunner().invoke(app, ["build", "--data-dir", str(folder)], env={"WAG_DB": str(db)})
    assert res.exit_code == 2
    assert "holds none of the dataset folders pmdata/, lifesnaps/, globem/, ifh_affect/" in res.stderr
    assert needle in res.stderr and res.stderr.strip().count("\n") == 0
    assert not db.exists()


def test_build_reports_withheld_values_and_prints_messages_literally(shared_data, tmp_path):
    """A new-user review: `wag build` said nothing about the values kept out of metric_values (non-wear
    days of p03 here), and Rich markup ate "[spark]"-like text in error lines."""
    data = tmp_path / "data"
    for f in ("fitbit/steps.json", "fitbit/time_in_heart_rate_zones.json", "fitbit/sedentary_minutes.json"):
        (data / "pmdata" / "p03" / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(shared_data / "pmdata" / "p03" / f, data / "pmdata" / "p03" / f)
    db = tmp_path / "wh" / "wag.duckdb"
    env = {"WAG_DB": str(db), "WAG_DATA_DIR": str(data), "DO_NOT_TRACK": "1", "COLUMNS": "300"}
    res = CliRunner().invoke(app, ["build"], env=env)
    assert res.exit_code == 0, res.output
    con = duckdb.connect(str(db), read_only=True)
    try:
        n = con.execute("select count(*) from metric_values_rejected where rejection_reason like 'non-wear day%'").fetchone()[0]
    finally:
        con.close()
    assert n > 0
    assert f"{n:,} values withheld from metric_values: pmdata {n:,} (non-wear day)" in res.output
    res = CliRunner().invoke(app, ["ask", "How did I sleep?", "--subject", "pmdata:[bold]x"], env=env)
    assert res.exit_code == 2 and "unknown subject 'pmdata:[bold]x'" in res.output
    # the same warehouse built from another folder: the build says it replaces the other data
    other = tmp_path / "other"
    (other / "pmdata" / "p01" / "pmsys").mkdir(parents=True)
    shutil.copy(shared_data / "pmdata/p01/pmsys/wellness.csv", other / "pmdata/p01/pmsys/wellness.csv")
    res = CliRunner().invoke(app, ["build"], env={**env, "WAG_DATA_DIR": str(other)})
    assert res.exit_code == 0, res.output
    assert f"Note: the warehouse was last built from {data.resolve()}; this build reads {other.resolve()}" in \
        " ".join(res.output.split())
