"""Shared pytest fixtures.

``shared_data`` is ``../shared/data`` beside the repository (the real dataset excerpts, read in place).
``built_db`` builds the whole dbt project on those excerpts once per test session, into a temporary
DuckDB file, and returns its path. Tests open it read-only.

Tiers: every test that runs dbt — through ``built_db``, a fixture or a helper that calls dbt, or a
`wag build` / `wag demo` — is marked ``build`` at collection (:func:`pytest_collection_modifyitems`),
so ``pytest -m "not build"`` runs the fast tier (no dbt) and ``pytest`` runs everything.
"""

from __future__ import annotations

import inspect
import os
import re
from pathlib import Path

import pytest

pytest_plugins = ["stub_openai"]

REPO = Path(__file__).resolve().parents[1]
# the real excerpts: ../shared/data beside the repository, or WAG_TEST_SHARED (a folder holding data/ and eval/)
SHARED = Path(os.environ["WAG_TEST_SHARED"]) if os.environ.get("WAG_TEST_SHARED") else REPO.parent / "shared"
SHARED_DATA = SHARED / "data"
SHARED_EVAL = SHARED / "eval"


def run_dbt(args: list[str], *, db: Path, data_dir: Path, target: Path, extra_vars: str | None = None):
    """Run dbt in-process from the project root with an isolated database and target folder.

    Returns the dbtRunnerResult. The environment variables are restored afterwards.
    """
    from wag_cli.build import invoke_dbt_in_process

    cli = [*args, "--target-path", str(target), "--log-path", str(target / "logs"), "--quiet"]
    if extra_vars:
        cli += ["--vars", extra_vars]
    env = {"WAG_DB": str(db), "WAG_DATA_DIR": str(data_dir), "DO_NOT_TRACK": "1"}
    return invoke_dbt_in_process(cli, env, REPO)


#: Source text of a test, fixture or helper that runs dbt.
_RUNS_DBT = re.compile(r"\b(run_dbt|run_build|dbtRunner|invoke_dbt\w*|_?build\w*|_demo\w*|write_demo_data)\s*\("
                       r"|\[\s*[\"'](build|demo)[\"']|\bbuilt_db\b|\"dbt\"|\bdbt\b\s*\.")


def _runs_dbt(obj, seen: set) -> bool:
    """Whether ``obj``'s source (or that of a module-level helper it calls by name) runs dbt."""
    if obj is None or id(obj) in seen:
        return False
    seen.add(id(obj))
    try:
        src = inspect.getsource(obj)
    except (OSError, TypeError):
        return False
    if _RUNS_DBT.search(src):
        return True
    module = inspect.getmodule(obj)
    for name in set(re.findall(r"\b(_\w+)\s*\(", src)):
        helper = getattr(module, name, None)
        if inspect.isfunction(helper) and _runs_dbt(helper, seen):
            return True
    return False


def pytest_configure(config):
    config.addinivalue_line("markers", "build: runs dbt (a build on the excerpts or on files the test writes); "
                                       "deselect with -m 'not build' for the fast tier")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("build"):
            continue
        funcs = [getattr(item, "function", None)]
        for defs in getattr(item, "_fixtureinfo").name2fixturedefs.values():
            funcs += [d.func for d in defs if d.baseid != ""]   # project fixtures, not pytest's own
        if any(_runs_dbt(f, set()) for f in funcs):
            item.add_marker(pytest.mark.build)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real dataset excerpts not found at {SHARED_DATA} (expected ../shared/data beside the repo, "
                    "or set WAG_TEST_SHARED to the folder holding data/ and eval/)")
    return SHARED_DATA


@pytest.fixture(scope="session")
def built_db(shared_data: Path, tmp_path_factory) -> Path:
    """Path of a DuckDB file holding `dbt seed` + `dbt build` of the whole project on ../shared/data."""
    tmp = tmp_path_factory.mktemp("wag_real")
    db = tmp / "wag.duckdb"
    res = run_dbt(["build"], db=db, data_dir=shared_data, target=tmp / "target")
    if not res.success:
        raise AssertionError(f"dbt build on {shared_data} failed: {res.exception or res.result}")
    return db
