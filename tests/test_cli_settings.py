"""Retrieval constants as CLI options (issue 8 item 5, DESIGN.md §5-§8): `wag ask` passes them to the
warehouse's macros; nothing is recomputed in Python. Checked against the macros called directly."""

from __future__ import annotations

import json
import math

import duckdb
import pytest
from typer.testing import CliRunner

from wag_cli.cli import app
from wag_cli.settings import RetrievalSettings

runner = CliRunner()
SUBJECT = "pmdata:p01"
AS_OF = "2020-01-20"
QUESTION = "What stands out in my deep sleep this week?"


@pytest.fixture()
def wh(built_db, monkeypatch):
    monkeypatch.setenv("WAG_DB", str(built_db))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return built_db


def ask(*extra):
    res = runner.invoke(app, ["ask", QUESTION, "--subject", SUBJECT, "--as-of", AS_OF, "--json", *extra])
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


def neighbours(out):
    return [n for n in out["subgraph"]["nodes"] if n["role"] == "neighbour"]


def test_kappa_sets_the_budget(wh):
    out = ask("--kappa", "2")
    eta = out["subgraph"]["openness"]
    assert out["subgraph"]["budget"] == math.floor(eta * 2 + 1e-9)
    assert len(neighbours(out)) == out["subgraph"]["budget"]
    default = ask()
    assert default["subgraph"]["budget"] == math.floor(eta * RetrievalSettings.from_project().kappa + 1e-9)


def test_rank_by_ablation_orders_by_that_weight(wh):
    out = ask("--rank-by", "w_pop", "--kappa", "10")
    got = [n["metric_id"] for n in neighbours(out)]
    con = duckdb.connect(str(wh), read_only=True)
    try:
        expected = [r[0] for r in con.execute(
            "select node_y from wag_edge_weights_as_of(?, cast(? as date), ['deep_sleep_duration']) "
            "order by coalesce(o_pop, p_prior) desc, node_y limit ?", [SUBJECT, AS_OF, len(got)]).fetchall()]
    finally:
        con.close()
    assert got == expected
    assert all(n["rank_by"] == "w_pop" for n in neighbours(out))


def test_min_pop_subjects_removes_population_evidence(wh):
    out = ask("--min-pop-subjects", "50", "--kappa", "10")
    assert neighbours(out)
    for n in neighbours(out):
        # no population stage from the subject's own dataset; the §6 reference population (other
        # datasets) may then lack the pair's samples too
        assert n["r_pop_signed"] is None and n["r_pop_reason"] in ("too_few_subjects", "n_below_min")
        assert n["fallback"] in ("individual", "individual_no_population", "prior")   # §6 small cohorts


def test_bad_rank_by_is_a_one_line_error(wh):
    res = runner.invoke(app, ["ask", QUESTION, "--subject", SUBJECT, "--rank-by", "w_magic"])
    assert res.exit_code != 0
    assert "rank_by" in res.output and "w_final" in res.output
