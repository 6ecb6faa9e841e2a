"""The project's generic data tests (macros/tests.sql) on hand-made tables: what they return is what
dbt counts as failures, so a test that returns no row on bad data could never fail a build."""

from __future__ import annotations

import duckdb

from conftest import run_dbt
from wag_cli.failure_rows import describe_failing_rows


def _compiled(tmp_path, inline: str) -> str:
    res = run_dbt(["compile", "--inline", inline], db=tmp_path / "w.duckdb", data_dir=tmp_path, target=tmp_path / "t")
    assert res.success, res.exception
    return res.result.results[0].node.compiled_code


def test_not_null_columns_names_each_column_with_nulls_and_its_count(tmp_path):
    db = tmp_path / "w.duckdb"
    with duckdb.connect(str(db)) as con:
        # a: no NULL; b: 2 NULLs; "offset" (a keyword, quoted by the macro): 1 NULL; c: not listed
        con.execute('create table t as select * from (values (1, null, 5.0, null), (2, null, null, null), '
                    '(3, 7, 1.0, null)) as v(a, b, "offset", c)')
    sql = _compiled(tmp_path, "{{ test_not_null_columns(api.Relation.create(identifier='t'), "
                              "['a', 'b', 'offset']) }}")
    only_a = _compiled(tmp_path, "{{ test_not_null_columns(api.Relation.create(identifier='t'), ['a']) }}")
    with duckdb.connect(str(db), read_only=True) as con:
        assert sorted(con.execute(sql).fetchall()) == [("b", 2), ("offset", 1)]
        assert con.execute(only_a).fetchall() == []
    # a failed build names the column and its count (wag_cli.failure_rows)
    text = describe_failing_rows(db, sql)
    assert "column_name=b, n_null_rows=2" in text and "column_name=offset, n_null_rows=1" in text


def test_not_null_columns_on_an_empty_table_finds_nothing(tmp_path):
    db = tmp_path / "w.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute("create table t (a integer, b varchar)")
    sql = _compiled(tmp_path, "{{ test_not_null_columns(api.Relation.create(identifier='t'), ['a', 'b']) }}")
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute(sql).fetchall() == []
