"""Locks (issue 9 item 4), with a real second process holding the warehouse file.

A reader retries for WAG_LOCK_WAIT seconds and then names the holder's PID; it succeeds when the
holder lets go within that time. `wag build` refuses at once, in one line, naming the PID.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from wag_cli.cli import app

HOLD = """
import sys, time, duckdb
con = duckdb.connect(sys.argv[1], read_only=sys.argv[3] == 'ro')
print('ready', flush=True)
time.sleep(float(sys.argv[2]))
con.close()
"""


@pytest.fixture()
def wh(tmp_path: Path) -> Path:
    db = tmp_path / "wag.duckdb"
    con = duckdb.connect(str(db))
    con.execute("create table t as select 1 as x")
    con.close()
    (tmp_path / "data" / "pmdata").mkdir(parents=True)
    return db


def _hold(db: Path, seconds: float, mode: str = "rw") -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(db), str(seconds), mode],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    return proc


def test_reader_waits_then_names_the_pid(wh):
    proc = _hold(wh, 30)
    try:
        t0 = time.monotonic()
        res = CliRunner().invoke(app, ["sql", "select x from t"], env={"WAG_DB": str(wh), "WAG_LOCK_WAIT": "1.5"})
        elapsed = time.monotonic() - t0
    finally:
        proc.kill()
        proc.wait()
    assert res.exit_code == 3
    assert f"PID {proc.pid}" in res.stderr and "after waiting 1.5 s" in res.stderr
    assert "waiting up to 1.5 s" in res.stderr          # the notice shown while waiting
    assert 1.5 <= elapsed < 10


def test_reader_gets_in_when_the_holder_lets_go(wh):
    proc = _hold(wh, 1.0)
    try:
        res = CliRunner().invoke(app, ["sql", "select x + 41 as y from t", "--json"],
                                 env={"WAG_DB": str(wh), "WAG_LOCK_WAIT": "20"})
    finally:
        proc.wait()
    assert res.exit_code == 0, res.output
    assert '"y": 42' in res.stdout


@pytest.mark.parametrize("mode", ["rw", "ro"])
def test_build_names_the_holder_in_one_line(wh, mode):
    proc = _hold(wh, 30, mode)
    try:
        t0 = time.monotonic()
        res = CliRunner().invoke(app, ["build", "--data-dir", str(wh.parent / "data")],
                                 env={"WAG_DB": str(wh), "DO_NOT_TRACK": "1"})
        elapsed = time.monotonic() - t0
    finally:
        proc.kill()
        proc.wait()
    assert res.exit_code == 3
    assert f"is held by PID {proc.pid}" in res.stderr and res.stderr.strip().count("\n") == 0
    assert "Traceback" not in res.output and elapsed < 10


def test_bad_lock_wait_is_a_usage_error(wh):
    res = CliRunner().invoke(app, ["sql", "select 1"], env={"WAG_DB": str(wh), "WAG_LOCK_WAIT": "soon"})
    assert res.exit_code == 2 and "WAG_LOCK_WAIT='soon'" in res.stderr
