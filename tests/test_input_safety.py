"""Names are data, never SQL; implausible records are quarantined, not summed (issue 24).

Every input here is written by the test in the files' native shapes (PMData Fitbit JSON, PMSys CSV, a
wide export); expected values are worked out by hand from what the test wrote.
"""

from __future__ import annotations

import json
import os
import string
from pathlib import Path

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from conftest import REPO, run_dbt
from wag_cli.cli import app
from wag_cli.errors import UsageError
from wag_cli.safe_names import check_data_names, sql_string

HOSTILE = "x', header = true)); copy (select 42 as injected) to 'marker.csv'; select 'a' as column_name --"
STAGING = ["stg_pmdata__steps", "stg_pmdata__resting_heart_rate", "+int_pmdata__wellness_deduplicated", "raw_rejected"]


def _write_participant(folder: Path, *, steps: list[tuple[str, str]] | None = None,
                       rhr_days: tuple[str, ...] = ("2020-01-01 00:00:00", "2020-01-02 00:00:00")) -> None:
    """A minimal PMData participant: resting heart rate, per-minute steps, one wellness report."""
    fitbit, pmsys = folder / "fitbit", folder / "pmsys"
    fitbit.mkdir(parents=True)
    pmsys.mkdir(parents=True)
    (fitbit / "resting_heart_rate.json").write_text(json.dumps(
        [{"dateTime": d, "value": {"date": "", "value": 50.0 + i, "error": 1}} for i, d in enumerate(rhr_days)]))
    steps = steps or [("2020-01-01 10:00:00", "100"), ("2020-01-02 10:00:00", "40")]
    (fitbit / "steps.json").write_text(json.dumps([{"dateTime": t, "value": v} for t, v in steps]))
    (pmsys / "wellness.csv").write_text(
        "effective_time_frame,fatigue,mood,readiness,sleep_duration_h,sleep_quality,soreness,soreness_area,stress\n"
        "2020-01-01T08:00:00.000Z,3,3,5,7,3,2,[],3\n")


def _files(*roots: Path) -> set[Path]:
    out: set[Path] = set()
    for root in roots:
        for dirpath, _dirs, names in os.walk(root):
            if "/.git" in dirpath or "/target" in dirpath or "/logs" in dirpath or "__pycache__" in dirpath:
                continue
            out |= {Path(dirpath, n) for n in names}
    return out


# ---- names: pure functions (no build) ----

@given(st.text())
def test_sql_string_round_trips_through_duckdb(text):
    """Whatever the text, the literal reads back as exactly that text (independent oracle: DuckDB)."""
    text = text.replace("\x00", "")
    con = duckdb.connect()
    try:
        assert con.execute("select " + sql_string(text)).fetchall() == [(text,)]
    finally:
        con.close()


@pytest.mark.parametrize("name, what", [("a\nb", "a newline"), ("tab\there", "a tab"), ("a\\b", "a backslash")])
def test_unreadable_names_are_refused_with_the_path(tmp_path, name, what):
    (tmp_path / "pmdata" / name / "fitbit").mkdir(parents=True)
    with pytest.raises(UsageError) as err:
        check_data_names(tmp_path, ("pmdata", "lifesnaps"))
    msg = str(err.value)
    assert what in msg and repr(f"pmdata/{name}") in msg and "rename it" in msg and "\n" not in msg


def test_quotes_semicolons_and_letters_are_accepted(tmp_path):
    for name in ["o'brien", HOSTILE, "Åse; drop", 'q"uote', "a[1]*?"]:
        (tmp_path / "pmdata" / name).mkdir(parents=True)
    check_data_names(tmp_path, ("pmdata",))  # no error


# ---- names: builds ----

def test_the_reported_folder_name_builds_and_runs_nothing(shared_data, tmp_path, monkeypatch):
    """The exact folder name of the report (and o'brien) load as subjects through `wag build`; no file
    appears anywhere: not in the data folder, the repository, or the directory the build runs in."""
    data = tmp_path / "data"
    _write_participant(data / "pmdata" / HOSTILE)
    _write_participant(data / "pmdata" / "o'brien")
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("WAG_DB", str(tmp_path / "wag.duckdb"))
    before = _files(tmp_path, REPO)
    res = CliRunner().invoke(app, ["build", "--data-dir", str(data)])
    assert res.exit_code == 0, res.output
    after = _files(tmp_path, REPO)
    new = {p for p in after - before if p.name != "wag.duckdb" and tmp_path / "wag.duckdb.staging" not in p.parents}
    assert not any(p.name == "marker.csv" for p in after), new
    assert not [p for p in new if REPO in p.parents], new
    con = duckdb.connect(str(tmp_path / "wag.duckdb"), read_only=True)
    try:
        subjects = {r[0] for r in con.execute("select distinct subject_id from metric_values").fetchall()}
    finally:
        con.close()
    assert subjects == {f"pmdata:{HOSTILE}", "pmdata:o'brien"}


_FRAGMENTS = ["'", '"', ";", "--", "\n", "\\", "é", "Å", "ß", " ", ")", "(", "copy (select 1) to 'pwn.csv'",
              "*", "?", "[", "]", "/*", "%"]
_NAME = st.lists(st.sampled_from(_FRAGMENTS) | st.text(string.ascii_letters, min_size=1, max_size=3),
                 min_size=1, max_size=6).map("".join).filter(lambda s: s.strip() not in ("", ".", ".."))


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=st.lists(_NAME, min_size=1, max_size=3, unique=True))
def test_any_folder_name_loads_or_is_refused_and_runs_nothing(shared_data, tmp_path_factory, names):
    """Property: participant folders named with quotes, semicolons, '--', newlines, backslashes and
    non-ASCII letters either load as subjects (staging + quarantine) or are refused before dbt with a
    message naming the path; no statement in a name runs (no pwn.csv anywhere)."""
    tmp = tmp_path_factory.mktemp("names")
    data = tmp / "data"
    names = [n.replace("/", "_") for n in names]
    for n in names:
        _write_participant(data / "pmdata" / n)
    cwd = Path.cwd()
    try:
        check_data_names(data, ("pmdata",))
    except UsageError as err:
        bad = [n for n in names if any(c in n for c in "\n\\")]
        assert bad and any(repr(f"pmdata/{n}") in str(err) for n in bad), str(err)
        return
    assert not any(c in n for n in names for c in "\n\\")
    res = run_dbt(["build", "--select", *STAGING], db=tmp / "w.duckdb", data_dir=data, target=tmp / "target")
    assert res.success, res.result
    for root in (tmp, REPO, cwd):
        assert not [p for p in _files(root) if p.name == "pwn.csv"]
    con = duckdb.connect(str(tmp / "w.duckdb"), read_only=True)
    try:
        got = {r[0] for r in con.execute("select distinct subject_id from stg_pmdata__resting_heart_rate").fetchall()}
        rejected = con.execute("select count(*) from raw_rejected").fetchone()[0]
    finally:
        con.close()
    assert got == {f"pmdata:{n}" for n in names}
    assert rejected == 0


# ---- implausible dates, negative minutes, month-first timestamps (one build) ----

@pytest.fixture(scope="module")
def planted(shared_data, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("plausible")
    data = tmp / "data"
    steps = [
        ("2020-01-01 10:00:00", "100"), ("2020-01-01 10:01:00", "-50"), ("2020-01-01 10:02:00", "30"),
        ("2020-01-02 09:00:00", "-5"), ("2020-01-02 09:01:00", "-7"),          # a day of only negative minutes
        # Fitbit's account export (Takeout) spelling, month first: 12/31/19 is 2019-12-31
        ("12/31/19 23:58:00", "11"), ("12/31/19 23:59:00", "13"),
        ("01/03/20 00:00:00", "17"), ("01/03/20 00:01:00", "19"),
        ("31/12/19 23:57:00", "5"),                                            # day first: not a date here
    ]
    _write_participant(data / "pmdata" / "p90", steps=steps,
                       rhr_days=("2020-01-01 00:00:00", "2099-01-01 00:00:00", "1970-01-01 00:00:00"))
    db = tmp / "wag.duckdb"
    models = STAGING + ["+metric_values"]
    # the models and seeds up to metric_values (their data tests need the whole project)
    res = run_dbt(["build", "--select", *models, "--resource-type", "model", "--resource-type", "seed"],
                  db=db, data_dir=data, target=tmp / "target",
                  extra_vars="{max_plausible_day: '2026-12-07'}")
    assert res.success, res.result
    con = duckdb.connect(str(db), read_only=True)
    yield con
    con.close()


def test_implausible_days_are_quarantined_with_their_locator(planted):
    rows = planted.execute("select locator, reason, bad_value from raw_rejected "
                           "where file = 'pmdata/p90/fitbit/resting_heart_rate.json' order by locator").fetchall()
    assert rows == [
        ("element 2 (dateTime 2099-01-01 00:00:00)", "implausible_date (dateTime outside 2000-01-01..2026-12-07)",
         "2099-01-01 00:00:00"),
        ("element 3 (dateTime 1970-01-01 00:00:00)", "implausible_date (dateTime outside 2000-01-01..2026-12-07)",
         "1970-01-01 00:00:00"),
    ]
    days = planted.execute("select min(day), max(day) from metric_values where subject_id = 'pmdata:p90'").fetchone()
    assert [d.isoformat() for d in days] == ["2019-12-31", "2020-01-03"]


def test_negative_minutes_are_quarantined_and_the_day_keeps_the_rest(planted):
    got = dict(planted.execute("select day::varchar, value from stg_pmdata__steps "
                               "where subject_id = 'pmdata:p90'").fetchall())
    # 2020-01-01: 100 + 30 (the -50 left out); 2020-01-02: only negative minutes -> no row
    assert got == {"2019-12-31": 24.0, "2020-01-01": 130.0, "2020-01-03": 36.0}
    neg = planted.execute("select locator, reason from raw_rejected where file like '%p90/fitbit/steps.json' "
                          "and reason like '%negative%' order by locator").fetchall()
    assert neg == [("element 2 (dateTime 2020-01-01 10:01:00)", "value is negative (an amount cannot be)"),
                   ("element 4 (dateTime 2020-01-02 09:00:00)", "value is negative (an amount cannot be)"),
                   ("element 5 (dateTime 2020-01-02 09:01:00)", "value is negative (an amount cannot be)")]


def test_month_first_fitbit_timestamps_are_read_and_day_first_stays_quarantined(planted):
    bad = planted.execute("select locator, reason from raw_rejected where file like '%p90/fitbit/steps.json' "
                          "and reason not like '%negative%'").fetchall()
    assert bad == [("element 10 (dateTime 31/12/19 23:57:00)",
                    "dateTime is not a timestamp (YYYY-MM-DD HH:MM:SS)")]


# ---- wide exports: duplicated and empty headers ----

@pytest.mark.parametrize("header, column", [("participant_id,date,steps,Steps ", "'Steps'"),
                                            ("participant_id,date,steps,,sleep", "column 4 has no name")])
def test_wide_header_problems_stop_before_dbt(tmp_path, monkeypatch, header, column):
    csv = tmp_path / "mine.csv"
    csv.write_text(header + "\n" + "u1,2020-01-01" + ",1" * (header.count(",") - 1) + "\n")
    monkeypatch.setenv("WAG_DB", str(tmp_path / "wag.duckdb"))
    res = CliRunner().invoke(app, ["build", "--data-dir", str(tmp_path / "none"), "--wide", f"mine={csv}"])
    assert res.exit_code == 2, res.output
    line = res.output.strip()
    assert str(csv) in line and column in line and "line 1" in line
    assert not (tmp_path / "wag.duckdb").exists()


def test_a_failed_data_test_names_subject_day_and_value(tmp_path):
    """The failing rows of a data test (here value_between's `select * … where value < 0`) are named
    by their locating columns; a query with no such column or no row adds nothing."""
    from wag_cli.failure_rows import describe_failing_rows

    db = tmp_path / "w.duckdb"
    con = duckdb.connect(str(db))
    con.execute("create table stg as select * from (values ('pmdata:p01', date '2020-01-02', 'steps.sum', -20.0, 'x'),"
                " ('pmdata:p01', date '2020-01-03', 'steps.sum', 5.0, 'y')) as t(subject_id, day, raw_field, value, other)")
    con.close()
    got = describe_failing_rows(db, "select * from stg where value < 0")
    assert got == "; first failing rows: subject_id=pmdata:p01, day=2020-01-02, raw_field=steps.sum, value=-20.0"
    assert describe_failing_rows(db, "select other from stg") == ""
    assert describe_failing_rows(db, "select * from stg where value < -100") == ""
    assert describe_failing_rows(db, "select * from no_such_table") == ""


def test_a_plain_dbt_build_refuses_a_newline_in_a_name(shared_data, tmp_path):
    """`dbt build` without `wag build` (the on-run-start hook) refuses it too, naming the path."""
    data = tmp_path / "data"
    _write_participant(data / "pmdata" / "p01")
    _write_participant(data / "pmdata" / "a\nb")
    res = run_dbt(["build"], db=tmp_path / "w.duckdb", data_dir=data, target=tmp_path / "target")
    assert not res.success
    text = str(res.exception or res.result)
    assert "control character" in text and "a\\nb" in text
