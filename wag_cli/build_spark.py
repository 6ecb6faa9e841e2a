"""`wag build --engine spark` (issue 12): the same dbt project built on Spark, read back into DuckDB.

:func:`invoke_dbt_spark` runs ``dbt build --target spark`` in a subprocess (PySpark starts its own
JVM, which exits with it) into :func:`spark_warehouse_dir` and reads the result from dbt's
``run_results.json`` into a :class:`~wag_cli.dbt_run.BuildResult`;
:func:`export_spark_warehouse` then writes a DuckDB warehouse file holding every table of the Spark
warehouse with the DuckDB table macros installed over them, so every reader command (ask, sql,
subjects…) answers from the Spark build. :func:`wag_cli.build.run_build` calls both and swaps the
file in atomically, as for a DuckDB build.

Errors: :class:`~wag_cli.errors.UsageError` when the spark extra (dbt-spark) is not installed;
:class:`~wag_cli.errors.WagError` when dbt cannot run at all or the macros cannot be installed. A
failed dbt build is reported in the result, not raised.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Callable

from .dbt_run import BuildResult, invoke_dbt_in_process, one_line
from .errors import UsageError, WagError
from .paths import project_dir


def spark_warehouse_dir() -> Path:
    """The Spark warehouse folder: WAG_SPARK_WAREHOUSE, else spark-warehouse/ in the project (profiles.yml)."""
    env = os.environ.get("WAG_SPARK_WAREHOUSE")
    return Path(env).resolve() if env else project_dir() / "spark-warehouse"


def invoke_dbt_spark(project: Path, warehouse: Path, data_dir: Path, dbt_vars: dict,
                      on_node: Callable[[str, str], None] | None) -> BuildResult:
    """``dbt build --target spark`` in a subprocess (PySpark starts its own JVM, which then exits with
    it); the result from dbt's run_results.json."""
    import subprocess
    import sys

    if importlib_util_find("dbt.adapters.spark") is None:
        raise UsageError('--engine spark needs the spark extra: pip install -e ".[spark]" (and Java 17)')
    target = project / "target" / "spark"
    env = dict(os.environ)
    env.update({"WAG_SPARK_WAREHOUSE": str(warehouse), "WAG_DATA_DIR": str(Path(data_dir).resolve()),
                "DO_NOT_TRACK": os.environ.get("DO_NOT_TRACK", "1")})
    dbt = Path(sys.executable).with_name("dbt")
    cmd = [str(dbt), "build", "--target", "spark", "--project-dir", str(project), "--profiles-dir", str(project),
           "--target-path", str(target), "--vars", json.dumps(dbt_vars), "--no-use-colors"]
    proc = subprocess.Popen(cmd, cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    for line in proc.stdout:
        m = re.search(r"\d+ of \d+ (OK|PASS|ERROR|FAIL|WARN|SKIP)\b.*? ([\w.]+) \.", line)
        if m and on_node is not None:
            on_node(m.group(2).split(".")[-1], m.group(1).lower())
    proc.wait()
    out = BuildResult(success=proc.returncode == 0)
    results = target / "run_results.json"
    if results.is_file():
        for r in json.loads(results.read_text()).get("results", []):
            status = str(r.get("status"))
            out.n_nodes += 1
            out.status_counts[status] = out.status_counts.get(status, 0) + 1
            if status in ("error", "fail"):
                out.failures.append((r.get("unique_id", "").split(".")[-1], one_line(r.get("message") or "")))
    elif proc.returncode != 0:
        raise WagError(f"dbt build --target spark could not run (exit {proc.returncode})")
    return out


def importlib_util_find(name: str):
    """``importlib.util.find_spec(name)``, or None also when a parent package is missing."""
    import importlib.util

    try:
        return importlib.util.find_spec(name)
    except ModuleNotFoundError:
        return None


def export_spark_warehouse(warehouse: Path, database: Path, project: Path, schema: str = "wag") -> list[str]:
    """A DuckDB warehouse file holding every table of a Spark warehouse (its Parquet folders
    ``<warehouse>/<schema>.db/<table>``), with the DuckDB table macros of macros/analyst/ installed
    over them (``dbt run-operation wag_install_retrieve``): the Spark build, readable by every command."""
    import duckdb

    folder = Path(warehouse) / f"{schema}.db"
    tables = sorted(p.name for p in folder.iterdir() if p.is_dir() and any(p.glob("*.parquet")))
    con = duckdb.connect(str(database))
    try:
        for t in tables:
            con.execute(f'create or replace table "{t}" as select * from read_parquet(?)', [str(folder / t / "*.parquet")])
    finally:
        con.close()
    res = invoke_dbt_in_process(
        ["run-operation", "wag_install_retrieve", "--project-dir", str(project), "--profiles-dir", str(project),
         "--target", "duckdb", "--quiet"],
        {"WAG_DB": str(database), "DO_NOT_TRACK": os.environ.get("DO_NOT_TRACK", "1")}, project)
    if not res.success:
        raise WagError(f"could not install the retrieval macros into {database}: {res.exception or res.result}")
    return tables
