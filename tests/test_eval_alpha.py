"""`wag eval alpha` (DESIGN.md §6 "Hyperparameter selection"): the crossing on synthetic curves with
a known crossing, Kendall's tau averaging on hand-made rankings, and the eval_alpha_grid view (the
wag_hbm macro per grid point) against a numpy implementation of the §6 stages written here."""

from __future__ import annotations

import json
import math

import duckdb
import numpy as np
import pytest
from typer.testing import CliRunner

from wag_cli.errors import UsageError
from wag_cli.eval import alpha as A

GAMMA = 0.9
ALPHA_PRIOR = 1.0
ALPHA_POP = 10 ** 0.94
ALPHA_IND = 10 ** -1.31


def test_crossing_by_linear_interpolation_between_grid_points():
    xs = [0.0, 0.25, 0.5, 0.75, 1.0]
    a = [x * x for x in xs]                 # 0, .0625, .25, .5625, 1
    b = [0.5] * 5
    # d = a - b changes sign between 0.5 (-0.25) and 0.75 (+0.0625): 0.5 + 0.25 * 0.25 / 0.3125 = 0.7
    assert A.crossings(xs, a, b) == [pytest.approx(0.7)]


def test_crossing_on_a_grid_point_several_crossings_and_none():
    xs = [-2.0, -1.0, 0.0, 1.0, 2.0]
    assert A.crossings(xs, [1, 0.5, 0, -0.5, -1], [0] * 5) == [0.0]
    # a zig-zag crosses zero three times: between -2 and -1 at -1.5, between 0 and 1 at 0.5, at 2
    assert A.crossings(xs, [1, -1, -1, 1, 0], [0] * 5) == [pytest.approx(-1.5), pytest.approx(0.5), 2.0]
    assert A.crossings(xs, [1, 2, 3, 4, 5], [0] * 5) == []
    # a NaN point is skipped: interpolate between x = -2 (d = 1) and x = 0 (d = -1) -> -1
    assert A.crossings(xs, [1, float("nan"), -1, -2, -3], [0] * 5) == [pytest.approx(-1.0)]


def test_select_alphas_takes_the_first_crossing_and_hints_the_vars():
    curves = {
        "alpha_pop": {"log10_alpha": [0.0, 1.0], "curves": {"a": [0.2, 0.8], "b": [0.6, 0.4]}},   # cross at 0.5
        "alpha_ind": {"log10_alpha": [0.0, 1.0], "curves": {"a": [0.2, 0.3], "b": [0.6, 0.5]}},   # never
    }
    chosen = A.select_alphas(curves)
    assert chosen["alpha_pop"]["log10"] == pytest.approx(0.5)
    assert chosen["alpha_pop"]["value"] == pytest.approx(10 ** 0.5)
    assert chosen["alpha_ind"]["value"] is None
    assert A.vars_hint(chosen) == f"{{alpha_pop: {10 ** 0.5:.6g}}}"


def test_tau_is_averaged_over_neighbourhoods():
    # one grid point of alpha_pop, two neighbourhoods of 3 candidates and one with a single complete pair
    rows = [
        # (subject, node_x, p, o, mu_pop)
        ("s1", "x", 0.1, 0.9, 0.2), ("s1", "x", 0.2, 0.8, 0.3), ("s1", "x", 0.3, 0.7, 0.4),   # tau(p,mu)=1, tau(o,mu)=-1
        ("s2", "x", 0.1, 0.1, 0.4), ("s2", "x", 0.2, 0.2, 0.3), ("s2", "x", 0.3, 0.3, 0.2),   # tau(p,mu)=-1, tau(o,mu)=-1
        ("s3", "x", 0.1, None, 0.4), ("s3", "x", 0.2, 0.5, 0.3),                                # o: 1 pair -> skipped
    ]
    n = len(rows)
    data = {
        "grid_param": np.array(["alpha_pop"] * n, dtype=object), "log10_alpha": np.zeros(n),
        "subject_id": np.array([r[0] for r in rows], dtype=object), "node_x": np.array([r[1] for r in rows], dtype=object),
        "p_prior": np.array([r[2] for r in rows]), "o_pop": np.array([np.nan if r[3] is None else r[3] for r in rows]),
        "i_ind": np.full(n, np.nan), "mu_pop": np.array([r[4] for r in rows]), "mu_s": np.full(n, np.nan),
    }
    out = A.tau_curves(data)["alpha_pop"]
    assert out["log10_alpha"] == [0.0]
    # tau(p, mu_pop): s1 +1, s2 -1, s3 (2 pairs, discordant) -1 -> mean -1/3
    assert out["curves"]["tau(p_prior, mu_pop)"] == [pytest.approx(-1 / 3)]
    assert out["curves"]["tau(o_pop, mu_pop)"] == [pytest.approx(-1.0)]


@pytest.mark.parametrize("text", ["-3:3", "a:b:c", "1:0:0.5", "0:1:0", "0:1000:0.1"])
def test_bad_grids_are_usage_errors(text):
    with pytest.raises(UsageError):
        A.parse_grid(text)


def test_grid_parses():
    assert A.parse_grid("-3:3:0.25").as_var() == {"start": -3.0, "stop": 3.0, "step": 0.25}


# --------------------------------------------------------------------------- the SQL grid


def _sig(v):
    return 1 / (1 + np.exp(-GAMMA * v))


def _std(v):
    return (v - v.mean()) / v.std(ddof=1) if np.ptp(v) > 0 else np.zeros_like(v)


def _stages(w_prior, fz_pop, se_pop, fz_s, se_s, alpha_pop, alpha_ind):
    """§6 stages for a neighbourhood where every candidate has both correlations (numpy, here)."""
    p, o, i = _sig(_std(w_prior)), _sig(_std(fz_pop)), _sig(_std(fz_s))
    v = alpha_pop * (se_pop / fz_pop.std(ddof=1) * o * (1 - o)) ** 2
    u = alpha_ind * (se_s / fz_s.std(ddof=1) * i * (1 - i)) ** 2
    q = ALPHA_PRIOR * np.mean(v / alpha_pop)
    s_pop = 1 / (1 / q + 1 / v)
    mu_pop = s_pop * (p / q + o / v)
    s_s = 1 / (1 / s_pop + 1 / u)
    return mu_pop, s_s * (mu_pop / s_pop + i / u)


@pytest.fixture
def grid_db(built_db):
    con = duckdb.connect(str(built_db), read_only=True)
    con.execute("set enable_progress_bar = false")
    yield con
    con.close()


def test_grid_view_matches_numpy_stages(grid_db):
    # a neighbourhood where all candidates carry both correlations, with variation in each
    subject, node = grid_db.execute(
        "select subject_id, node_x from edge_weights group by all"
        " having count(*) >= 4 and count(fz_s) = count(*) and count(fz_pop) = count(*)"
        " and max(fz_s) > min(fz_s) and max(fz_pop) > min(fz_pop) order by 1, 2 limit 1").fetchone()
    inputs = grid_db.execute("select node_y, w_prior, fz_pop, se_pop, fz_s, se_s from edge_weights"
                             " where subject_id = ? and node_x = ? order by node_y", [subject, node]).fetchnumpy()
    for param, log10 in (("alpha_pop", 1.0), ("alpha_pop", -2.0), ("alpha_ind", -1.0), ("alpha_ind", 2.5)):
        got = grid_db.execute(
            "select mu_pop, mu_s from eval_alpha_grid where grid_param = ? and log10_alpha = ? and subject_id = ?"
            " and node_x = ? order by node_y", [param, log10, subject, node]).fetchnumpy()
        a_pop = 10 ** log10 if param == "alpha_pop" else ALPHA_POP
        a_ind = 10 ** log10 if param == "alpha_ind" else ALPHA_IND
        mu_pop, mu_s = _stages(*(inputs[c].astype(float) for c in ("w_prior", "fz_pop", "se_pop", "fz_s", "se_s")),
                               a_pop, a_ind)
        assert np.allclose(got["mu_pop"], mu_pop, atol=1e-9), (param, log10)
        assert np.allclose(got["mu_s"], mu_s, atol=1e-9), (param, log10)


def test_grid_view_at_the_default_alpha_pop_reproduces_edge_weights(grid_db):
    # rows varying alpha_ind keep alpha_pop at its var: p_prior and mu_pop equal the stored table
    diff = grid_db.execute(
        "select count(*), max(abs(g.mu_pop - e.mu_pop)), max(abs(g.p_prior - e.p_prior)),"
        " count(*) filter (where (g.mu_pop is null) <> (e.mu_pop is null))"
        " from eval_alpha_grid as g join edge_weights as e using (subject_id, node_x, node_y)"
        " where g.grid_param = 'alpha_ind' and g.log10_alpha = 0").fetchone()
    n_edges = grid_db.execute("select count(*) from edge_weights").fetchone()[0]
    assert diff[0] == n_edges and diff[1] < 1e-12 and diff[2] < 1e-12 and diff[3] == 0
    points = grid_db.execute("select grid_param, count(distinct log10_alpha), min(log10_alpha), max(log10_alpha)"
                             " from eval_alpha_grid group by 1 order by 1").fetchall()
    assert [(p, n, float(lo), float(hi)) for p, n, lo, hi in points] == [("alpha_ind", 25, -3.0, 3.0),
                                                                         ("alpha_pop", 25, -3.0, 3.0)]


def test_alpha_cli_on_another_grid_compiles_the_model(built_db, tmp_path, monkeypatch):
    from wag_cli.cli import app

    monkeypatch.setenv("WAG_DB", str(built_db))
    monkeypatch.setenv("DO_NOT_TRACK", "1")
    res = CliRunner().invoke(app, ["eval", "alpha", "--grid", "-2:2:1", "--json", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    for param in ("alpha_pop", "alpha_ind"):
        assert out["curves"][param]["log10_alpha"] == [-2.0, -1.0, 0.0, 1.0, 2.0]
        for ys in out["curves"][param]["curves"].values():
            assert all(-1 <= y <= 1 for y in ys if not math.isnan(y))
    import matplotlib.image as mpimg

    assert mpimg.imread(out["figure"]).shape[0] > 100
