"""profiles.yml (issue 9 items 5 and 9): the warehouse path is anchored to WAG_DB or the project, and
DuckDB's memory_limit / temp_directory come from env vars with bounded defaults."""

from __future__ import annotations

import os

import pytest
import yaml

from conftest import REPO

KEYS = ("WAG_DB", "DBT_PROJECT_DIR", "DBT_PROFILES_DIR", "WAG_MEMORY_LIMIT", "WAG_TEMP_DIR")


def _render(monkeypatch, env: dict) -> dict:
    from dbt.config.renderer import ProfileRenderer
    from dbt_common.context import set_invocation_context

    for k in KEYS:
        monkeypatch.delenv(k, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    set_invocation_context(dict(os.environ))
    raw = yaml.safe_load((REPO / "profiles.yml").read_text())
    return ProfileRenderer({}).render_data(raw)["wag"]["outputs"]["duckdb"]


@pytest.mark.parametrize("env, path", [
    ({"WAG_DB": "/data/w/wag.duckdb", "DBT_PROJECT_DIR": "/repo"}, "/data/w/wag.duckdb"),
    ({"DBT_PROJECT_DIR": "/repo"}, "/repo/wag.duckdb"),
    ({"DBT_PROFILES_DIR": "/repo2"}, "/repo2/wag.duckdb"),
])
def test_path_is_anchored(monkeypatch, env, path):
    out = _render(monkeypatch, env)
    assert out["path"] == path
    assert out["config_options"]["temp_directory"] == path + ".tmp"


def test_memory_defaults_and_overrides(monkeypatch):
    out = _render(monkeypatch, {"WAG_DB": "/w.duckdb"})
    assert out["config_options"]["memory_limit"] == "3GB"
    out = _render(monkeypatch, {"WAG_DB": "/w.duckdb", "WAG_MEMORY_LIMIT": "1500MB", "WAG_TEMP_DIR": "/scratch"})
    assert out["config_options"] == {"memory_limit": "1500MB", "temp_directory": "/scratch"}


def _render_spark(monkeypatch, env: dict) -> dict:
    from dbt.config.renderer import ProfileRenderer
    from dbt_common.context import set_invocation_context

    for k in KEYS + ("WAG_SPARK_MASTER", "WAG_SPARK_WAREHOUSE", "WAG_SPARK_DRIVER_MEMORY", "WAG_SPARK_SCHEMA"):
        monkeypatch.delenv(k, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    set_invocation_context(dict(os.environ))
    raw = yaml.safe_load((REPO / "profiles.yml").read_text())
    return ProfileRenderer({}).render_data(raw)["wag"]["outputs"]["spark"]


def test_spark_target_defaults_and_overrides(monkeypatch):
    # issue 12: dbt-spark session method; master, memory and warehouse from the environment
    out = _render_spark(monkeypatch, {"DBT_PROJECT_DIR": "/repo"})
    ssp = out["server_side_parameters"]
    assert (out["type"], out["method"], out["schema"]) == ("spark", "session", "wag")
    assert (ssp["spark.master"], ssp["spark.driver.memory"]) == ("local[*]", "4g")
    assert ssp["spark.sql.warehouse.dir"] == "/repo/spark-warehouse"
    assert ssp["javax.jdo.option.ConnectionURL"] == "jdbc:derby:;databaseName=/repo/spark-warehouse/metastore_db;create=true"
    out = _render_spark(monkeypatch, {"WAG_SPARK_MASTER": "local[2]", "WAG_SPARK_WAREHOUSE": "/wh",
                                      "WAG_SPARK_DRIVER_MEMORY": "2g", "WAG_SPARK_SCHEMA": "w2"})
    ssp = out["server_side_parameters"]
    assert (ssp["spark.master"], ssp["spark.driver.memory"], ssp["spark.sql.warehouse.dir"], out["schema"]) == \
        ("local[2]", "2g", "/wh", "w2")
