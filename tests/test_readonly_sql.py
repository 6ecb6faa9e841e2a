"""`wag sql` is read-only (issue 9 item 3): two guards, each tested on its own, then together.

Guard 1: the sqlglot allowlist (wag_cli.sqlguard). Guard 2: DuckDB's configuration on read-only
connections (wag_cli.db.connect: enable_external_access = false, lock_configuration = true).
The warehouse here is a small DuckDB file written by the test (a table and a table macro).
"""

from __future__ import annotations

import os
from pathlib import Path

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from wag_cli.cli import app
from wag_cli.db import connect
from wag_cli.errors import UsageError
from wag_cli.sqlguard import check_read_only_sql

SECRET = "top-secret-line-7f3a"


@pytest.fixture()
def tiny_wh(tmp_path: Path, monkeypatch) -> Path:
    """A warehouse with one table and one table macro, plus a secret file beside it."""
    db = tmp_path / "wh" / "wag.duckdb"
    db.parent.mkdir()
    con = duckdb.connect(str(db))
    con.execute("create table metric_values as select 'pmdata:p01' as subject_id, 'steps' as metric_id, "
                "42.0::double as value, '[bold red]x[/] :smile: [link=file:///etc]y[/link]' as note")
    con.execute("create macro wag_double(k) as table select value * k as v from metric_values")
    con.close()
    (tmp_path / "secret.txt").write_text(f"a,b\n{SECRET},1\n")
    monkeypatch.setenv("WAG_DB", str(db))
    monkeypatch.setenv("WAG_LOCK_WAIT", "0")
    monkeypatch.chdir(tmp_path)
    return db


def _files(root: Path) -> set[Path]:
    return {p for p in root.rglob("*")}


def forbidden(tmp: Path) -> list[str]:
    """Statements that would write or read a file, change settings or load code."""
    out, secret = tmp / "out", tmp / "secret.txt"
    return [
        f"copy (select 1) to '{out}.csv'",
        f"copy metric_values to '{out}.parquet' (format parquet)",
        f"export database '{out}_dir'",
        f"attach '{out}.duckdb' as x",
        f"attach '{out}.duckdb' as x (read_only)",
        "install httpfs",
        "load httpfs",
        "set memory_limit = '1GB'",
        "set enable_external_access = true",
        "reset enable_external_access",
        "pragma enable_profiling",
        "pragma version",
        "call pragma_version()",
        "create table t as select 1",
        "create macro m() as 1",
        "insert into metric_values values ('x', 'y', 1, 'z')",
        "update metric_values set value = 0",
        "delete from metric_values",
        "drop table metric_values",
        "checkpoint",
        "vacuum",
        "detach wag",
        "use memory",
        f"select * from read_csv('{secret}')",
        f"select * from read_csv_auto('{secret}')",
        f"select * from read_text('{secret}')",
        f"select * from read_blob('{secret}')",
        f"select * from read_json('{secret}')",
        f"select * from read_parquet('{secret}')",
        f"select * from parquet_scan('{secret}')",
        f"select * from sniff_csv('{secret}')",
        f"select * from glob('{tmp}/*')",
        f"from '{secret}'",
        f"select * from \"{secret}\"",
        f"describe '{secret}'",
        f"summarize read_csv('{secret}')",
        f"with a as (select * from read_text('{secret}')) select * from a",
        f"select (select content from read_text('{secret}'))",
        f"explain analyze select * from read_text('{secret}')",
        f"explain copy (select 1) to '{out}.csv'",
        f"select 1; copy (select 1) to '{out}.csv'",
        f"with a as (select 1) insert into metric_values select * from a",
    ]


# ------------------------------------------------------------------ guard 1: the allowlist alone

def test_allowlist_refuses_every_forbidden_statement(tmp_path):
    for q in forbidden(tmp_path):
        with pytest.raises(UsageError) as err:
            check_read_only_sql(q)
        assert "\n" not in str(err.value), q


@pytest.mark.parametrize("q", [
    "select * from metric_values",
    "with a as (select 1 as x) select x from a",
    "from metric_values",
    "select 1 union all select 2",
    "describe metric_values",
    "show tables",
    "summarize metric_values",
    "explain select * from metric_values",
    "explain analyze select 1",
    "select * from wag_double(2)",
    "select 1;",
])
def test_allowlist_accepts_reads(q):
    check_read_only_sql(q)


@pytest.mark.parametrize("q", ["", "   ", ";", " ; ;"])
def test_allowlist_empty(q):
    with pytest.raises(UsageError, match="empty"):
        check_read_only_sql(q)


# ------------------------------------------------------------------ guard 2: DuckDB's configuration alone

def test_duckdb_guard_without_the_allowlist(tiny_wh, tmp_path):
    """Statements sent straight to a read-only connection (no allowlist) still touch no file."""
    before = _files(tmp_path)
    con = connect(tiny_wh, read_only=True)
    try:
        assert con.execute("select * from wag_double(3)").fetchall() == [(126.0,)]  # table macros work
        for q in [f"select * from read_text('{tmp_path / 'secret.txt'}')",
                  f"select * from read_csv('{tmp_path / 'secret.txt'}')",
                  f"from '{tmp_path / 'secret.txt'}'",
                  f"select * from glob('{tmp_path}/*')",
                  f"copy (select 1) to '{tmp_path / 'o.csv'}'",
                  f"attach '{tmp_path / 'o.duckdb'}' as o",
                  f"export database '{tmp_path / 'exp'}'"]:
            # a replacement scan (FROM 'path') is not even attempted: the path is an unknown table
            with pytest.raises((duckdb.PermissionException, duckdb.CatalogException)) as err:
                con.execute(q)
            assert SECRET not in str(err.value)
        for q in ["set enable_external_access = true", "set memory_limit = '1GB'",
                  "reset enable_external_access", "pragma enable_profiling = 'json'"]:
            with pytest.raises(duckdb.Error):
                con.execute(q)
        with pytest.raises(duckdb.Error):
            con.execute("create table t as select 1")   # read-only file
    finally:
        con.close()
    assert _files(tmp_path) == before


# ------------------------------------------------------------------ both, through the CLI

def test_cli_refuses_forbidden_statements_in_one_line(tiny_wh, tmp_path):
    runner = CliRunner()
    before = _files(tmp_path)
    for q in forbidden(tmp_path):
        res = runner.invoke(app, ["sql", q])
        assert res.exit_code == 2, (q, res.output)
        assert res.stderr.strip().startswith("error:") and res.stderr.strip().count("\n") == 0, (q, res.stderr)
        assert SECRET not in res.output, q
        assert _files(tmp_path) == before, q


def test_cli_reads_and_prints_cells_literally(tiny_wh):
    res = CliRunner().invoke(app, ["sql", "select note, value from metric_values"], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert "[bold red]x[/] :smile: [link=file:///etc]y[/link]" in res.stdout
    assert "😄" not in res.stdout
    res = CliRunner().invoke(app, ["sql", "select * from wag_double(2)", "--json"])
    assert res.exit_code == 0 and '"v": 84.0' in res.stdout


@pytest.mark.parametrize("args, needle", [
    (["sql", ""], "empty"),
    (["sql", "select 1", "--limit", "-1"], "--limit -1"),
])
def test_cli_usage_errors_are_one_line(tiny_wh, args, needle):
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2
    assert needle in res.stderr and res.stderr.strip().count("\n") == 0


# ------------------------------------------------------------------ property: no statement creates a file

_PATH_TAILS = st.sampled_from(["x.csv", "x.parquet", "x.duckdb", "x.json", "d", "x.txt"])
_TEMPLATES = st.sampled_from([
    "copy (select {lit}) to '{p}'", "copy metric_values to '{p}' (format {fmt})", "export database '{p}'",
    "attach '{p}' as a{n}", "create table t{n} as select {lit}", "select {lit}", "select * from metric_values",
    "select * from read_csv('{p}')", "from '{p}'", "set temp_directory = '{p}'", "pragma {word}",
    "install '{p}'", "load '{p}'", "{word} '{p}'", "select * from wag_double({n})", "explain copy (select 1) to '{p}'",
    "with a as (select {lit}) select * from a", "select {lit}; copy (select 1) to '{p}'", "call {word}('{p}')",
    "create or replace view v as select {lit}", "copy (from '{p}') to '{p}.2'",
])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(template=_TEMPLATES, tail=_PATH_TAILS, n=st.integers(0, 99),
       lit=st.one_of(st.integers(-5, 5).map(str), st.text("ab';\" ", max_size=6).map(lambda s: "'" + s.replace("'", "''") + "'")),
       fmt=st.sampled_from(["csv", "parquet", "json"]),
       word=st.sampled_from(["checkpoint", "vacuum", "copy", "attach", "export", "import database", "version"]))
def test_property_no_sql_creates_a_file(tiny_wh, tmp_path, template, tail, n, lit, fmt, word):
    before = _files(tmp_path)
    q = template.format(p=tmp_path / "gen" / tail, n=n, lit=lit, fmt=fmt, word=word)
    (tmp_path / "gen").mkdir(exist_ok=True)
    before = _files(tmp_path)
    res = CliRunner().invoke(app, ["sql", q])
    assert res.exit_code in (0, 2), (q, res.output)
    assert _files(tmp_path) == before, q
    assert not os.path.exists(tmp_path / "gen" / tail)
