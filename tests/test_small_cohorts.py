"""DESIGN.md §6 "Small cohorts" on a planted three-dataset case (issue 28), against numpy/scipy.

Three wide exports: `refa` (4 people), `refb` (3 people) and `solo` (1 person, a cohort of one),
40 days each of five sleep/activity metrics with planted correlations. For the solo person:

* rule 1 (var reference_population auto): every pair's population evidence is the fixed-effect
  meta-analysis of refa's and refb's pooled Spearman correlations (scipy on the pooled subject-days,
  Fisher z weighted by n - 3), pop_source 'reference: refa, refb'; the HBM (numpy hbm_weights) on it;
* rule 2 (var reference_population none): no population evidence anywhere, so the prior variance is
  the individual stage's and every pair with a valid own correlation is 'individual_no_population'.
"""

from __future__ import annotations

import json
import math

import duckdb
import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from conftest import run_dbt
from test_graph_weights import TOL, hbm_weights

METRICS = ["sleep_score", "asleep_duration", "deep_sleep_duration", "rem_sleep_duration", "active_time"]
PEOPLE = {"refa": 4, "refb": 3, "solo": 1}
DAYS = 40


def planted(dataset: str, k: int, n_people: int) -> pd.DataFrame:
    rng = np.random.default_rng(100 + k)
    rows = []
    for p in range(n_people):
        base = rng.normal(size=DAYS)
        for d in range(DAYS):
            b = base[d]
            rows.append({
                "participant_id": f"p{p}", "date": (pd.Timestamp("2024-01-01") + pd.Timedelta(days=d)).date().isoformat(),
                "sleep_score": round(70 + 8 * b + rng.normal() * (2 + k), 1),
                "asleep_duration": round(420 + 40 * b + rng.normal() * 15, 1),
                "deep_sleep_duration": round(70 + 10 * rng.normal() - 4 * b * (k - 1), 1),
                "rem_sleep_duration": round(90 + 12 * b + rng.normal() * 10, 1),
                "active_time": round(200 + 60 * rng.normal() + 10 * k * b, 1),
            })
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def planted_case(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cohorts")
    frames, sources = {}, []
    for k, (name, n) in enumerate(PEOPLE.items()):
        frames[name] = planted(name, k, n)
        path = tmp / f"{name}.csv"
        frames[name].to_csv(path, index=False)
        sources.append({"dataset": name, "path": str(path)})
    empty = tmp / "data"
    empty.mkdir()
    dbs = {}
    for mode in ("auto", "none"):
        db = tmp / f"{mode}.duckdb"
        res = run_dbt(["build"], db=db, data_dir=empty, target=tmp / f"target_{mode}",
                      extra_vars=json.dumps({"wide_sources": sources, "reference_population": mode}))
        assert res.success, res.result
        dbs[mode] = db
    return frames, dbs


def _pooled(frame: pd.DataFrame, x: str, y: str):
    """Spearman over the pooled subject-days (DESIGN §5), with its validity rule; (rho, n) or None."""
    if x not in frame or y not in frame:
        return None
    pair = frame[["participant_id", x, y]].dropna()
    if len(pair) < 10 or pair[x].nunique() < 2 or pair[y].nunique() < 2 or pair["participant_id"].nunique() < 3:
        return None
    return float(spearmanr(pair[x], pair[y]).statistic), len(pair)


def _own(frame: pd.DataFrame, x: str, y: str):
    if x not in frame or y not in frame:
        return np.nan, np.nan
    pair = frame[[x, y]].dropna()
    if len(pair) < 10 or pair[x].nunique() < 2 or pair[y].nunique() < 2:
        return np.nan, np.nan
    r = float(spearmanr(pair[x], pair[y]).statistic)
    return math.atanh(min(abs(r), 1 - 1e-8)), 1 / math.sqrt(len(pair) - 3)


def _check(db, frames, mode):
    con = duckdb.connect(str(db), read_only=True)
    try:
        ew = con.sql("select * from edge_weights where subject_id = 'solo:p0'").df()
        edges = con.sql("select node_a, node_b, w_prior from edges").df()
    finally:
        con.close()
    assert len(ew) > 0
    checked = 0
    for x, got in ew.groupby("node_x"):
        got = got.sort_values("node_y")
        ys = list(got["node_y"])
        w_prior, fz_pop, se_pop, fz_s, se_s, refs = [], [], [], [], [], []
        for y in ys:
            a, b = sorted((x, y))
            w_prior.append(float(edges[(edges.node_a == a) & (edges.node_b == b)]["w_prior"].iloc[0]))
            zs, ws = [], []
            if mode == "auto":
                for other in ("refa", "refb"):
                    r = _pooled(frames[other], x, y)
                    if r is not None:
                        zs.append(math.atanh(max(min(r[0], 1 - 1e-8), -(1 - 1e-8))))
                        ws.append(r[1] - 3)
            if ws:
                z = float(np.dot(zs, ws) / np.sum(ws))
                fz_pop.append(abs(z))
                se_pop.append(1 / math.sqrt(np.sum(ws)))
                refs.append("reference: refa, refb" if len(ws) == 2 else None)
            else:
                fz_pop.append(np.nan), se_pop.append(np.nan), refs.append(None)
            f, s = _own(frames["solo"], x, y)
            fz_s.append(f), se_s.append(s)
        res = hbm_weights(np.array(w_prior), np.array(fz_pop), np.array(se_pop), np.array(fz_s), np.array(se_s))
        assert np.allclose(got["fz_pop"].to_numpy(float), fz_pop, atol=TOL, equal_nan=True), x
        assert np.allclose(got["w_global"].to_numpy(float), res["w"], atol=TOL), x
        assert list(got["fallback"]) == res["fallback"], x
        if mode == "auto":
            assert [s if isinstance(s, str) else None for s in got["pop_source"]] == refs, x
        checked += len(got)
    return ew, checked


def test_reference_population_is_the_meta_analysis_of_the_other_datasets(planted_case):
    frames, dbs = planted_case
    ew, checked = _check(dbs["auto"], frames, "auto")
    assert checked >= 10
    mine = ew[ew["node_x"].isin(METRICS)]                  # x with data: own rho valid, population from the reference
    assert set(mine["fallback"]) == {"individual"}
    assert set(ew[~ew["node_x"].isin(METRICS)]["fallback"]) == {"prior"}


def test_without_population_the_prior_variance_comes_from_the_individual_stage(planted_case):
    frames, dbs = planted_case
    ew, checked = _check(dbs["none"], frames, "none")
    assert checked >= 10
    mine = ew[ew["node_x"].isin(METRICS)]
    assert set(mine["fallback"]) == {"individual_no_population"}
    assert ew["pop_source"].isna().all()
    ew = mine
    # mu_pop = p (the population stage skipped) and the personal evidence moves the weight off the prior
    assert np.allclose(ew["mu_pop"], ew["p_prior"])
    assert (abs(ew["w_global"] - ew["p_prior"]) > 1e-6).any()
