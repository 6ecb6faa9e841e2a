"""Shared pytest fixtures.

``shared_data`` is ``../shared/data`` beside the repository (the real dataset excerpts, read in place).
``built_db`` builds the whole dbt project on those excerpts once per test session, into a temporary
DuckDB file, and returns its path. Tests open it read-only.
"""

from __future__ import annotations

import os
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
