"""CSV dialects of wide exports (issue 9 item 6): ';' delimiters, decimal commas, a BOM and quoted
headers load (sniffed by DuckDB, or declared per source); an unreadable file fails naming the file and
the dialect tried. Files are written by the test in the shape spreadsheet programs save."""

from __future__ import annotations

import duckdb
import pytest
from typer.testing import CliRunner

from wag_cli.cli import app
from wag_cli.dialect import resolve_wide_dialect
from wag_cli.errors import UsageError

BOM = "\ufeff"
ROWS = [("me", "2024-01-01", "8000", "45,5"), ("me", "2024-01-02", "9500", "47,25"), ("me", "2024-01-03", "", "50")]


def _write(path, delim=";", decimal=",", bom=True, quoted=True, newline="\r\n"):
    head = ["participant_id", "date", "Steps taken", "HRV"]
    q = (lambda s: f'"{s}"') if quoted else (lambda s: s)
    lines = [delim.join(q(h) for h in head)]
    for r in ROWS:
        lines.append(delim.join([r[0], r[1], r[2], r[3].replace(",", decimal)]))
    path.write_text((BOM if bom else "") + newline.join(lines) + newline, encoding="utf-8")
    return path


@pytest.mark.parametrize("delim, decimal, bom, quoted", [
    (";", ",", True, True), (";", ".", False, False), ("\t", ",", True, False), (",", ".", True, True),
    ("|", ".", False, True),
])
def test_dialect_is_sniffed(tmp_path, delim, decimal, bom, quoted):
    f = _write(tmp_path / "x.csv", delim, decimal, bom, quoted)
    assert resolve_wide_dialect(f) == {"delim": delim, "quote": '"', "decimal": decimal}


def test_declared_dialect_wins(tmp_path):
    f = _write(tmp_path / "x.csv")
    assert resolve_wide_dialect(f, {"decimal": "."})["decimal"] == "."
    with pytest.raises(UsageError, match="cannot read as CSV with delimiter ','"):
        resolve_wide_dialect(f, {"delim": ",", "quote": '"'})


def test_header_without_key_columns(tmp_path):
    f = tmp_path / "x.csv"
    f.write_text("user;day;steps\nme;2024-01-01;5\n")
    with pytest.raises(UsageError, match="delimiter ';'.*the header has no participant_id, date"):
        resolve_wide_dialect(f)


def test_unreadable_file_names_file_and_dialect(tmp_path):
    f = tmp_path / "bad.csv"
    f.write_bytes(b"participant_id;date;steps\r\nme;2024-01-01;" + bytes(range(128, 256)) * 4 + b"\r\n")
    with pytest.raises(UsageError) as err:
        resolve_wide_dialect(f, {"delim": ";", "quote": '"'})
    msg = str(err.value)
    assert str(f) in msg and "delimiter ';'" in msg and "UTF-8" in msg and "\n" not in msg


def test_wag_build_loads_a_semicolon_export(tmp_path):
    f = _write(tmp_path / "export.csv")
    db = tmp_path / "w.duckdb"
    (tmp_path / "none").mkdir()
    res = CliRunner().invoke(app, ["build", "--data-dir", str(tmp_path / "none"), "--wide", f"mydata={f}"],
                             env={"WAG_DB": str(db), "DO_NOT_TRACK": "1"})
    assert res.exit_code == 0, res.output
    con = duckdb.connect(str(db), read_only=True)
    try:
        got = {(m, str(d)): v for m, d, v in con.execute(
            "select metric_id, day, value from metric_values where subject_id = 'mydata:me'").fetchall()}
    finally:
        con.close()
    assert got[("hrv_rmssd", "2024-01-01")] == 45.5 and got[("hrv_rmssd", "2024-01-02")] == 47.25
    assert got[("steps_taken", "2024-01-02")] == 9500.0 and ("steps_taken", "2024-01-03") not in got


def test_wag_build_refuses_an_unreadable_export(tmp_path):
    f = tmp_path / "export.csv"
    f.write_bytes(bytes(range(256)) * 8)
    (tmp_path / "none").mkdir()
    res = CliRunner().invoke(app, ["build", "--data-dir", str(tmp_path / "none"), "--wide", f"mydata={f}"],
                             env={"WAG_DB": str(tmp_path / "w.duckdb"), "DO_NOT_TRACK": "1"})
    assert res.exit_code == 2 and str(f) in res.stderr and "cannot read as CSV" in res.stderr
    assert not (tmp_path / "w.duckdb").exists()
