"""`wag build`: run `dbt build` (seeds, models, data tests, unit tests) through dbt's Python runner.

dbt runs in-process (``dbtRunner``) from the project directory with the warehouse path and the raw
data folder passed as absolute paths, so the command works from any working directory. Progress is
reported per finished node through dbt's event callbacks. A failed build leaves the tables of the
previous successful build in place (dbt-duckdb swaps a table in only after it was built).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .errors import WagError
from .paths import db_path, project_dir


@dataclass
class BuildResult:
    """Outcome of a build: counts by status and the failures (node name, message)."""

    success: bool
    n_nodes: int = 0
    status_counts: dict[str, int] = field(default_factory=dict)
    failures: list[tuple[str, str]] = field(default_factory=list)


def _dbt_vars(data_dir: Path, wide_sources: list[dict] | None) -> dict:
    out: dict = {"data_dir": str(Path(data_dir).resolve())}
    if wide_sources:
        out["wide_sources"] = [
            {"dataset": s["dataset"], "path": str(Path(s["path"]).resolve())} for s in wide_sources
        ]
    return out


def run_build(
    data_dir: Path,
    *,
    wide_sources: list[dict] | None = None,
    on_node: Callable[[str, str], None] | None = None,
    database: Path | None = None,
) -> BuildResult:
    """Run ``dbt build`` on ``data_dir`` into ``database`` (default: :func:`paths.db_path`).

    ``on_node(name, status)`` is called as each node finishes. Returns a :class:`BuildResult`;
    raises :class:`WagError` when dbt itself cannot start (bad project, bad profile).
    """
    from dbt.cli.main import dbtRunner

    project = project_dir()
    database = Path(database).resolve() if database else db_path()
    env_saved = {k: os.environ.get(k) for k in ("WAG_DB", "WAG_DATA_DIR", "DO_NOT_TRACK")}
    os.environ["WAG_DB"] = str(database)
    os.environ["WAG_DATA_DIR"] = str(Path(data_dir).resolve())
    os.environ.setdefault("DO_NOT_TRACK", "1")

    def callback(event) -> None:
        if on_node is None or event.info.name != "NodeFinished":
            return
        node = event.data.node_info
        on_node(node.node_name, node.node_status)

    args = [
        "build",
        "--project-dir", str(project),
        "--profiles-dir", str(project),
        "--vars", json.dumps(_dbt_vars(data_dir, wide_sources)),
        "--quiet",
        "--no-use-colors",
    ]
    cwd = os.getcwd()
    try:
        os.chdir(project)
        res = dbtRunner(callbacks=[callback]).invoke(args)
    finally:
        release_dbt_duckdb()
        os.chdir(cwd)
        for k, v in env_saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v

    if res.exception is not None and res.result is None:
        raise WagError(f"dbt could not run: {res.exception}")
    out = BuildResult(success=bool(res.success))
    for r in getattr(res.result, "results", None) or []:
        status = str(r.status)
        out.n_nodes += 1
        out.status_counts[status] = out.status_counts.get(status, 0) + 1
        if status in ("error", "fail"):
            out.failures.append((r.node.name, _one_line(r.message or "")))
    return out


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


def _one_line(message: str) -> str:
    """dbt messages carry ANSI codes and compiled-SQL paths; keep the first informative lines."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", message).strip()
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return " ".join(lines[:3])
