"""`wag build --population-as-of` (issue 31): the option reaches run_build as a dbt var setting (part of
the settings hash there; tests/test_incremental.py builds with it and finds the month-end snapshots),
is absent by default (dbt_project.yml's exact), and an unknown mode is a usage error."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import wag_cli.build
from wag_cli.cli import app
from wag_cli.errors import WagError

runner = CliRunner()


@pytest.fixture()
def captured(monkeypatch, tmp_path):
    got = {}

    def fake_run_build(data_dir, **kwargs):
        got.update(kwargs)
        raise WagError("stopped before dbt (test)")

    monkeypatch.setattr(wag_cli.build, "run_build", fake_run_build)
    monkeypatch.setenv("WAG_DB", str(tmp_path / "wag.duckdb"))
    (tmp_path / "data" / "pmdata").mkdir(parents=True)
    got["data_dir"] = tmp_path / "data"
    return got


@pytest.mark.parametrize("args, settings", [([], None),
                                            (["--population-as-of", "snapshot"], {"population_as_of": "snapshot"}),
                                            (["--population-as-of", "exact"], {"population_as_of": "exact"})])
def test_population_as_of_reaches_the_build(captured, args, settings):
    res = runner.invoke(app, ["build", "--data-dir", str(captured["data_dir"]), *args])
    assert "stopped before dbt (test)" in res.output
    assert res.exit_code != 0
    assert captured["settings"] == settings


def test_unknown_population_mode_is_a_usage_error(captured):
    res = runner.invoke(app, ["build", "--data-dir", str(captured["data_dir"]), "--population-as-of", "monthly"])
    assert res.exit_code == 2
    assert "settings" not in captured
