"""wag_cli.spark_retrieve without Spark (issue 12): the macro-source parser and the expansion of a
table-macro call into one query. The expansion is checked against DuckDB's own table macros: the
expanded wag_retrieve, written back in DuckDB SQL, must return exactly the rows of the macro call on
the same warehouse — so what Spark runs is the macro, not a second implementation."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import duckdb
import pytest

from conftest import REPO
from wag_cli.spark_retrieve import expand, macro_query, parse_macros, sql_literal

TOY = """create or replace macro main.inner_m(a, k := 2) as table
select a * k as v;

create or replace macro main.outer_m(x, k := 3) as table
select t.v + x as w from inner_m(x, k := k) as t
"""


def test_parse_macros_reads_params_and_defaults():
    macros = parse_macros(TOY)
    assert list(macros) == ["inner_m", "outer_m"]
    assert macros["inner_m"].params == [("a", None), ("k", "2")]
    assert macros["outer_m"].body == "select t.v + x as w from inner_m(x, k := k) as t"


def test_expand_binds_arguments_defaults_and_nested_calls():
    macros = parse_macros(TOY)
    con = duckdb.connect()
    # outer_m(5): inner_m(5, k := 3) = 15, + 5 = 20; an explicit k overrides the default
    assert con.execute(macro_query(macros, "outer_m", dialect="duckdb", x=5)).fetchall() == [(20,)]
    assert con.execute(macro_query(macros, "outer_m", dialect="duckdb", x=5, k=10)).fetchall() == [(55,)]
    with pytest.raises(TypeError, match="missing argument x"):
        expand(macros, "outer_m", {})


def test_sql_literal_round_trips():
    con = duckdb.connect()
    values = ["it's", 7, 0.1, None, True, date(2020, 1, 15), ["a", "b"]]
    row = con.execute("select " + ", ".join(sql_literal(v) for v in values)).fetchone()
    assert list(row) == values


@pytest.fixture(scope="module")
def duckdb_macro_source(built_db: Path, tmp_path_factory) -> str:
    """create_wag_retrieve rendered for the DuckDB target (what the on-run-end hook runs)."""
    from wag_cli.build import invoke_dbt_in_process

    tmp = tmp_path_factory.mktemp("render")
    res = invoke_dbt_in_process(
        ["compile", "--inline", "{{ create_wag_retrieve('main') }}", "--target-path", str(tmp / "target"),
         "--log-path", str(tmp / "logs"), "--quiet"],
        {"WAG_DB": str(built_db), "DO_NOT_TRACK": "1"}, REPO)
    assert res.success, res.exception
    return res.result.results[0].node.compiled_code


def test_expanded_wag_retrieve_equals_the_duckdb_macro(built_db: Path, duckdb_macro_source: str):
    from wag_cli.settings import RetrievalSettings

    macros = parse_macros(duckdb_macro_source)
    settings = RetrievalSettings.from_project().macro_params()
    con = duckdb.connect(str(built_db), read_only=True)
    subjects = con.execute("select subject_id, max(day) from metric_values group by 1 order by 1 limit 4").fetchall()
    named = ", ".join(f"{k} := ${k}" for k in settings)
    n_rows = 0
    for subject, last_day in subjects:
        for metrics, window_days, eta, back in [(["deep_sleep_duration"], 7, 0.8, 0), (["steps_taken"], None, 1.0, 20),
                                                (["resting_heart_rate", "mental_stress"], 14, 0.4, 5)]:
            args = dict(subject=subject, metrics=metrics, ref_day=last_day - timedelta(days=back),
                        window_days=window_days, eta=eta, **settings)
            expected = con.execute(
                f"select * from wag_retrieve($subject, $metrics, $ref_day, $window_days, $eta, {named})", args).fetchall()
            got = con.execute(macro_query(macros, "wag_retrieve", dialect="duckdb", **args)).fetchall()
            assert len(got) == len(expected), (subject, metrics)
            for g, e in zip(got, expected):
                # floats to 1e-12: DuckDB's parallel sums are not bit-reproducible between two queries
                assert all(abs(a - b) <= 1e-12 if isinstance(a, float) and isinstance(b, float) else a == b
                           for a, b in zip(g, e)), (subject, metrics, g, e)
            n_rows += len(expected)
    assert n_rows >= 30
