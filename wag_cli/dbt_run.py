"""Running dbt inside this process, and the outcome of a build.

:func:`invoke_dbt_in_process` is the one place the project runs dbt in-process (``wag build``,
``wag eval alpha``, the tests): it sets the environment and working directory for the call only and
then releases dbt-duckdb's database instance (:func:`release_dbt_duckdb`), so this process can open
the warehouse file again.

Shapes: :class:`BuildResult` (success, node count, counts by status, failures as ``(node name,
message)``, and for a DuckDB build what was refreshed), filled by :mod:`wag_cli.build` and
:mod:`wag_cli.build_spark`; :func:`one_line` words a dbt message on one line.

Errors: none raised for a failed dbt run (the ``dbtRunnerResult`` says it); a missing dbt-duckdb
adapter only makes :func:`release_dbt_duckdb` a no-op.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class BuildResult:
    """Outcome of a build: counts by status, the failures (node name, message) and, for a DuckDB
    build, what was refreshed (``refresh``: see :func:`refresh_report`)."""

    success: bool
    n_nodes: int = 0
    status_counts: dict[str, int] = field(default_factory=dict)
    failures: list[tuple[str, str]] = field(default_factory=list)
    refresh: dict | None = None


def invoke_dbt_in_process(args: list[str], env: dict[str, str], project: Path, callbacks: list | None = None):
    """Run ``dbtRunner().invoke(args)`` from ``project`` with ``env`` set for the call only.

    The one place the project runs dbt in-process (``wag build``, ``wag eval alpha``, the tests): it
    sets the environment variables and the working directory, releases dbt-duckdb's database
    instance afterwards (so this process can open the file again) and restores both. Returns the
    ``dbtRunnerResult``; nothing is raised for a failed run.
    """
    from dbt.cli.main import dbtRunner

    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    cwd = os.getcwd()
    try:
        os.chdir(project)
        return dbtRunner(callbacks=callbacks or []).invoke(args)
    finally:
        release_dbt_duckdb()
        os.chdir(cwd)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def release_dbt_duckdb() -> None:
    """Close the DuckDB database dbt-duckdb keeps open in this process after an in-process run.

    dbt-duckdb holds one database instance per process (``DuckDBConnectionManager._ENV``); until it
    is closed, opening the same file read-only from this process fails ("different configuration").
    """
    try:
        from dbt.adapters.duckdb.connections import DuckDBConnectionManager
    except ImportError:  # pragma: no cover - adapter not installed
        return
    env = DuckDBConnectionManager._ENV
    if env is not None:
        try:
            env.close()
        except Exception:  # closing twice or a half-open env: nothing left to release
            pass
    DuckDBConnectionManager.close_all_connections()


def one_line(message: str) -> str:
    """dbt messages carry ANSI codes and compiled-SQL paths; keep the first informative lines."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", message).strip()
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return " ".join(lines[:3])
