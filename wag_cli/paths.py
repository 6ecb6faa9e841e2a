"""Where the project, its database and its data live.

The dbt project is the repository root (the folder holding ``dbt_project.yml``). The CLI runs dbt
from there. The DuckDB file defaults to ``wag.duckdb`` in the project root and is overridden by
the ``WAG_DB`` environment variable; raw data defaults to ``demo_data/`` in the root and is
overridden by ``WAG_DATA_DIR`` (DESIGN.md §2).
"""

from __future__ import annotations

import os
from pathlib import Path


def project_dir() -> Path:
    """The dbt project directory: ``WAG_PROJECT_DIR`` if set, else the repository root of this
    package (an editable install, ``pip install -e .``), else the current directory.

    Raises :class:`~wag_cli.errors.WagError` when none of them holds a ``dbt_project.yml``.
    """
    env = os.environ.get("WAG_PROJECT_DIR")
    candidates = [Path(env)] if env else [Path(__file__).resolve().parent.parent, Path.cwd()]
    for c in candidates:
        if (c / "dbt_project.yml").is_file():
            return c.resolve()
    from .errors import WagError

    raise WagError(
        "cannot find the dbt project (dbt_project.yml): install from a clone with `pip install -e .`, "
        "run from the repository root, or set WAG_PROJECT_DIR"
    )


def db_path() -> Path:
    """Absolute path of the DuckDB file (``WAG_DB`` or ``<project>/wag.duckdb``)."""
    env = os.environ.get("WAG_DB")
    if env:
        return Path(env).resolve()
    return project_dir() / "wag.duckdb"


def demo_dir() -> Path:
    """Folder the demo data is written to (git-ignored)."""
    return project_dir() / "demo_data"


def data_dir() -> Path:
    """Raw data root: ``WAG_DATA_DIR`` or the demo folder."""
    env = os.environ.get("WAG_DATA_DIR")
    return Path(env).resolve() if env else demo_dir()
