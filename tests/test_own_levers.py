"""Issue 28 acceptance on ../shared/data (DESIGN.md §6 "Small cohorts"): a person's own evidence is
never ignored. IFH Affect has 2 subjects, so no population stage of its own; before the small-cohort
rules every IFH edge weight was the prior alone and "How can I improve my sleep score?" for par_1 never
named time asleep (own rho about 0.9 over 320 nights). Uses the shared ``built_db`` (conftest.py).
"""

from __future__ import annotations

import json
import re

import duckdb
import numpy as np
import pytest
from scipy import stats
from typer.testing import CliRunner

from wag_cli.cli import app

SUBJECT = "ifh_affect:par_1"


@pytest.fixture()
def wh(built_db, monkeypatch):
    monkeypatch.setenv("WAG_DB", str(built_db))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return built_db


def _own_rho(db, x: str, y: str, last_day) -> tuple[float, int]:
    """Spearman rho of the subject's own paired days <= last_day, from metric_values with scipy."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute(
            "select a.value, b.value from metric_values a join metric_values b "
            "on a.subject_id = b.subject_id and a.day = b.day "
            "where a.subject_id = ? and a.metric_id = ? and b.metric_id = ? and a.day <= ? "
            "and a.value is not null and b.value is not null", [SUBJECT, x, y, last_day]).fetchall()
    finally:
        con.close()
    if len(rows) < 3:
        return float("nan"), len(rows)
    a, b = np.array(rows).T
    return float(stats.spearmanr(a, b).statistic), len(rows)


def test_ifh_edge_weights_use_personal_evidence(built_db):
    con = duckdb.connect(str(built_db), read_only=True)
    try:
        counts = dict(con.execute("select fallback, count(*) from edge_weights where subject_id like 'ifh_affect:%' "
                                  "group by fallback").fetchall())
    finally:
        con.close()
    assert sum(counts.values()) > 0
    assert set(counts) - {"prior"}, counts            # no longer all 'prior'
    assert counts.get("prior", 0) < sum(counts.values()) / 2, counts


def test_improve_sleep_score_names_the_strongest_own_lever(wh):
    res = CliRunner().invoke(app, ["ask", "How can I improve my sleep score?", "--subject", SUBJECT,
                                   "--offline", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    answer = out["answer"]
    t = out["subgraph"]["reference_day"]
    neighbours = {n["metric_id"]: n for n in out["subgraph"]["nodes"]
                  if n["role"] == "neighbour" and n["primary_node"] == "sleep_score"}
    # time asleep is retrieved for sleep score, with the person's own correlation (scipy on metric_values)
    assert "asleep_duration" in neighbours, sorted(neighbours)
    rho, n = _own_rho(wh, "sleep_score", "asleep_duration", t)
    assert rho > 0.8 and n >= 300
    others = [abs(_own_rho(wh, "sleep_score", y, t)[0]) for y in neighbours if y != "asleep_duration"]
    assert all(abs(rho) >= r for r in others if not np.isnan(r))      # the strongest of the retrieved
    # the answer names it as a lever with that rho (the metric, not the prose: its name or its plain label)
    m = re.search(r"(?:time asleep|asleep duration)[^.;]*?rho \+?(-?\d\.\d\d) over (\d+) days", answer,
                  flags=re.IGNORECASE)
    assert m, answer
    assert float(m.group(1)) == pytest.approx(rho, abs=0.006) and int(m.group(2)) == n
