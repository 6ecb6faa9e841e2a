"""Issue 12: the same dbt project on Spark (dbt-spark `session` method, local PySpark).

Opt-in: needs the spark extra (`pip install -e ".[spark]"`) and a Java 17 runtime; skipped with that
message otherwise. The Spark build runs `dbt build --target spark` in a subprocess (its own JVM,
`local[2]`, driver memory 4g unless WAG_SPARK_* say otherwise) on the real excerpts in ../shared/data,
into a temporary Spark warehouse (Parquet files + embedded Derby metastore). Its tables are read back
from the Parquet files with DuckDB and compared with the DuckDB build of the same project (the
`built_db` fixture): same keys, same non-numeric values, numbers within 1e-9.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from conftest import REPO

SPARK_MISSING = importlib.util.find_spec("dbt.adapters.spark") is None or importlib.util.find_spec("pyspark") is None
pytestmark = [
    pytest.mark.skipif(SPARK_MISSING, reason='spark extra not installed: pip install -e ".[spark]" (dbt-spark[session], pyspark)'),
    pytest.mark.skipif(shutil.which("java") is None, reason="no Java runtime on PATH (PySpark needs Java 17)"),
]

TOL = 1e-9

# table -> key columns (the grain documented in the models' yml)
TABLES = {
    "metric_values": ["dataset", "subject_id", "metric_id", "day"],
    "correlations_individual": ["dataset", "subject_id", "node_a", "node_b"],
    "correlations_population": ["dataset", "node_a", "node_b"],
    "edge_weights": ["dataset", "subject_id", "node_x", "node_y"],
}


def spark_env(warehouse: Path, data_dir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update({
        "WAG_DATA_DIR": str(data_dir),
        "WAG_SPARK_WAREHOUSE": str(warehouse),
        "WAG_SPARK_MASTER": os.environ.get("WAG_SPARK_MASTER", "local[2]"),
        "WAG_SPARK_DRIVER_MEMORY": os.environ.get("WAG_SPARK_DRIVER_MEMORY", "4g"),
        "DO_NOT_TRACK": "1",
    })
    return env


@pytest.fixture(scope="session")
def spark_warehouse(shared_data: Path, tmp_path_factory) -> Path:
    """A Spark warehouse folder holding `dbt build --target spark` of the project on ../shared/data."""
    tmp = tmp_path_factory.mktemp("wag_spark")
    warehouse = tmp / "warehouse"
    dbt = Path(sys.executable).with_name("dbt")
    cmd = [str(dbt), "build", "--target", "spark", "--target-path", str(tmp / "target"),
           "--log-path", str(tmp / "logs")]
    proc = subprocess.run(cmd, cwd=REPO, env=spark_env(warehouse, shared_data),
                          capture_output=True, text=True, timeout=3600)
    if proc.returncode != 0:
        tail = "\n".join(line for line in proc.stdout.splitlines() if "ERROR" in line or "FAIL" in line)
        raise AssertionError(f"dbt build --target spark failed:\n{tail[-4000:]}")
    return warehouse


def parquet_glob(warehouse: Path, table: str) -> str:
    folder = warehouse / "wag.db" / table
    assert folder.is_dir(), f"Spark table {table} not found under {warehouse}"
    return str(folder / "*.parquet")


def load_pair(built_db: Path, warehouse: Path, table: str):
    con = duckdb.connect()
    con.execute(f"attach '{built_db}' as duck (read_only)")
    con.execute(f"create view spark_t as select * from read_parquet('{parquet_glob(warehouse, table)}')")
    duck_cols = [r[0] for r in con.execute(f"describe duck.{table}").fetchall()]
    spark_cols = [r[0] for r in con.execute("describe spark_t").fetchall()]
    keys = TABLES[table]
    order = ", ".join(f'"{k}"' for k in keys)
    duck_rows = con.execute(f"select * from duck.{table} order by {order}").fetchall()
    spark_rows = con.execute(f"select {', '.join(chr(34) + c + chr(34) for c in duck_cols)} from spark_t order by {order}").fetchall()
    return duck_cols, spark_cols, duck_rows, spark_rows


def same_value(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, float) or isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return abs(float(a) - float(b)) <= TOL
    return a == b


@pytest.mark.parametrize("table", list(TABLES))
def test_spark_table_equals_duckdb(built_db: Path, spark_warehouse: Path, table: str):
    duck_cols, spark_cols, duck_rows, spark_rows = load_pair(built_db, spark_warehouse, table)
    assert spark_cols == duck_cols, f"{table}: columns differ"
    # the comparison is only meaningful on a real build: the excerpts give thousands of rows
    assert len(duck_rows) > 500, f"{table}: DuckDB build has only {len(duck_rows)} rows"
    key_idx = [duck_cols.index(k) for k in TABLES[table]]
    duck_keys = [tuple(r[i] for i in key_idx) for r in duck_rows]
    spark_keys = [tuple(r[i] for i in key_idx) for r in spark_rows]
    assert len(set(duck_keys)) == len(duck_keys), f"{table}: duplicate keys in the DuckDB build"
    assert spark_keys == duck_keys, (
        f"{table}: keys differ: {len(set(duck_keys) - set(spark_keys))} only in DuckDB, "
        f"{len(set(spark_keys) - set(duck_keys))} only in Spark")
    mismatches = []
    for d, s in zip(duck_rows, spark_rows):
        for col, a, b in zip(duck_cols, d, s):
            if not same_value(a, b):
                mismatches.append((tuple(d[i] for i in key_idx), col, a, b))
    assert not mismatches, f"{table}: {len(mismatches)} values differ, e.g. {mismatches[:5]}"


def test_same_value_tolerance():
    # the comparison rule itself: 1e-9 absolute, NULL only equals NULL, NaN only NaN
    assert same_value(0.1 + 0.2, 0.3)
    assert not same_value(1.0, 1.0 + 2e-9)
    assert not same_value(None, 0.0)
    assert same_value(float("nan"), float("nan"))
    assert not same_value("a", "b")


# --------------------------------------------------------------------------- retrieval on Spark
QUESTIONS = [
    "How did I sleep this week?",
    "What affects my deep sleep the most?",
    "How were my steps over the last 30 days?",
    "Why am I tired despite sleeping 8 hours?",
    "Is my resting heart rate related to my stress?",
]


def retrieval_cases(con) -> list[dict]:
    """20 (subject, question) cases: the subjects of the build in order, the questions in turn, each
    parsed offline (the deterministic QueryParse) on the subject's last day."""
    from wag_cli.pipeline import parse_question
    from wag_cli.catalog import load_catalog

    catalog = load_catalog(con)
    subjects = con.execute(
        "select subject_id, max(day) from metric_values group by subject_id order by subject_id").fetchall()
    cases = []
    i = 0
    while len(cases) < 20 and i < 200:
        subject, last_day = subjects[i % len(subjects)]
        question = QUESTIONS[i % len(QUESTIONS)]
        i += 1
        parsed = parse_question(question, last_day, offline=True, catalog=catalog)
        if not parsed.metrics:
            continue
        cases.append({"subject": subject, "question": question, "metrics": list(parsed.metrics),
                      "ref_day": parsed.reference_day, "window_days": parsed.window_days, "eta": parsed.openness})
    return cases


def test_wag_retrieve_on_spark_equals_duckdb(built_db: Path, spark_warehouse: Path):
    from wag_cli.settings import RetrievalSettings
    from wag_cli.spark_retrieve import load_macros, register_warehouse, retrieve_rows, spark_session

    settings = RetrievalSettings.from_project().macro_params()
    con = duckdb.connect(str(built_db), read_only=True)
    cases = retrieval_cases(con)
    assert len(cases) == 20
    assert len({c["subject"] for c in cases}) >= 10

    spark = spark_session(master=os.environ.get("WAG_SPARK_MASTER", "local[2]"), driver_memory="2g")
    try:
        register_warehouse(spark, spark_warehouse)
        macros = load_macros(spark)
        n_neighbours = 0
        for case in cases:
            args = dict(subject=case["subject"], metrics=case["metrics"], ref_day=case["ref_day"],
                        window_days=case["window_days"], eta=case["eta"], **settings)
            named = ", ".join(f"{k} := ${k}" for k in settings)
            duck = con.execute(
                f"select * from wag_retrieve($subject, $metrics, $ref_day, $window_days, $eta, {named})",
                args).fetchall()
            columns = [d[0] for d in con.description]
            sp = retrieve_rows(spark, macros, **args)
            label = f"{case['subject']} / {case['question']!r}"
            assert sp, f"{label}: no row on Spark"
            assert list(sp[0]) == columns, f"{label}: columns differ"
            assert len(sp) == len(duck), f"{label}: {len(sp)} rows on Spark, {len(duck)} on DuckDB"
            for d, s in zip(duck, sp):
                for col, a in zip(columns, d):
                    assert same_value(a, s[col]), f"{label}: {col} = {a!r} on DuckDB, {s[col]!r} on Spark (row {d[:4]})"
            n_neighbours += sum(1 for d in duck if d[0] == "neighbour")
        # the cases exercise the ranking, not only the primary rows
        assert n_neighbours >= 40
    finally:
        spark.stop()


def test_wag_ask_on_the_spark_build_answers_the_same(built_db: Path, spark_warehouse: Path, tmp_path: Path):
    """Issue 12 item 4: the warehouse file written from the Spark build's Parquet tables (what
    `wag build --engine spark` does) answers `wag ask` exactly as the DuckDB build."""
    from wag_cli.build import export_spark_warehouse

    exported = tmp_path / "wag.duckdb"
    tables = export_spark_warehouse(spark_warehouse, exported, REPO)
    assert {"metric_values", "edge_weights", "edges", "nodes"} <= set(tables)
    wag = Path(sys.executable).with_name("wag")
    for subject in ("pmdata:p01", "lifesnaps:621e2e8e67b776a24055b564"):
        for question in ("How did I sleep this week?", "Why am I tired despite sleeping 8 hours?"):
            outs = []
            for db in (built_db, exported):
                proc = subprocess.run([str(wag), "ask", question, "--subject", subject, "--offline", "--json"],
                                      env={**os.environ, "WAG_DB": str(db)}, capture_output=True, text=True, timeout=300)
                assert proc.returncode == 0, proc.stderr
                outs.append(proc.stdout)
            answer = json.loads(outs[0])
            # a real answer with a retrieved subgraph, so the comparison covers retrieval and analysis
            assert answer["answer"] and answer["subgraph"]
            assert outs[1] == outs[0], f"{subject} / {question!r}: answers differ"
