"""wag_retrieve (DESIGN.md §7-§8) on a small hand-made warehouse: budget floor(eta*kappa), ceil per
primary, ties by node id, eta = 0, window 'all', no-data neighbours, and the local weights against an
independent Python computation of §7."""

from __future__ import annotations

import math
from datetime import date, timedelta

import duckdb
import pytest

from conftest import run_dbt

SUBJECT = "ds:s1"
T = date(2020, 1, 20)


def _make_fixture(db):
    con = duckdb.connect(str(db))
    con.execute("""
        create table edge_weights (dataset varchar, subject_id varchar, node_x varchar, node_y varchar,
            w_prior double, w_global double, fallback varchar, r_s_signed double, r_pop_signed double,
            n_s integer, n_pop integer, p_prior double, o_pop double, i_ind double, mu_pop double,
            sigma_pop double, mu_s double, sigma_s double, r_s_reason varchar, n_pop_subjects integer,
            r_pop_reason varchar, pop_source varchar)""")
    rows = [
        # primary a: five candidates; b and c tie on w_global
        ("a", "b", 0.5), ("a", "c", 0.5), ("a", "d", 0.7), ("a", "e", 0.6), ("a", "f", 0.2),
        # primary f: three candidates (a is a primary when both are asked)
        ("f", "a", 0.2), ("f", "b", 0.3), ("f", "c", 0.4),
        # primary g: two candidates with identical data (all zeta equal); primary j: one candidate
        ("g", "h", 0.4), ("g", "i", 0.6), ("j", "h", 0.3),
    ]
    for x, y, w in rows:
        con.execute("insert into edge_weights (dataset, subject_id, node_x, node_y, w_prior, w_global, fallback)"
                    " values ('ds', ?, ?, ?, ?, ?, 'prior')", [SUBJECT, x, y, w, w])
    # another subject with other weights must not leak in
    con.execute("insert into edge_weights (dataset, subject_id, node_x, node_y, w_prior, w_global, fallback)"
                " values ('ds', 'ds:s2', 'a', 'z', 0.9, 0.99, 'prior')")
    # the as-of path (default) reads edges + metric_values; these tests rank the hand-set full-history
    # weights above, so they call wag_retrieve with as_of := false
    con.execute("create table edges (node_a varchar, node_b varchar, w_prior double)")
    con.execute("create table correlations_population_snapshots (dataset varchar, snapshot_day date, "
                "is_full_history boolean, node_a varchar, node_b varchar, n integer, n_subjects integer, rho_unchecked double, "
                "variance_reason varchar)")
    con.execute("create table nodes as select unnest(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'z']) as metric_id")
    con.execute("create table metric_values (dataset varchar, subject_id varchar, metric_id varchar, day date, value double, value_text varchar)")
    data = {}
    for i in range(20):
        day = date(2020, 1, 1) + timedelta(days=i)
        data[("b", day)] = 10 + (i % 3)                     # steady
        data[("c", day)] = 5 + (6 if i >= 17 else 0)         # jumps in the last 3 days -> abnormal
        data[("d", day)] = 1 + 0.5 * (i % 2)
        if i < 10:
            data[("e", day)] = 3 + i % 2                      # no data in the 7-day window
        data[("h", day)] = 2 + (i % 4)
        data[("i", day)] = 2 + (i % 4)                        # same series as h
    # look-ahead guard: values after T must be ignored
    data[("c", T + timedelta(days=1))] = 1000.0
    for (m, day), v in data.items():
        con.execute("insert into metric_values values ('ds', ?, ?, ?, ?, null)", [SUBJECT, m, day, v])
    con.close()


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("retrieve")
    db = tmp / "fixture.duckdb"
    _make_fixture(db)
    res = run_dbt(["run-operation", "wag_install_retrieve"], db=db, data_dir=tmp, target=tmp / "target")
    assert res.success, res.exception
    c = duckdb.connect(str(db), read_only=True)
    yield c
    c.close()


def retrieve(con, metrics, eta, window=7, **kw):
    kw.setdefault("as_of", "false")
    extra = "".join(f", {k} := {v}" for k, v in kw.items())
    return con.execute(
        f"select * from wag_retrieve(?, ?, ?, ?, ?{extra}) order by primary_node, rank, node_id",
        [SUBJECT, metrics, T, window, eta],
    ).fetchall(), [d[0] for d in con.description]


def as_dicts(result):
    rows, cols = result
    return [dict(zip(cols, r)) for r in rows]


def test_budget_is_floor_eta_kappa(con):
    rows = as_dicts(retrieve(con, ["a"], 0.8))        # B = floor(4.0) = 4
    assert [r["role"] for r in rows].count("primary") == 1
    assert len([r for r in rows if r["role"] == "neighbour"]) == 4
    rows = as_dicts(retrieve(con, ["a"], 0.39))       # B = floor(1.95) = 1
    assert len([r for r in rows if r["role"] == "neighbour"]) == 1


def test_ceil_budget_per_primary_and_primaries_excluded(con):
    rows = as_dicts(retrieve(con, ["a", "f"], 0.6))   # B = 3, k_p = ceil(3 / 2) = 2
    neigh = [r for r in rows if r["role"] == "neighbour"]
    assert sorted(r["primary_node"] for r in neigh) == ["a", "a", "f", "f"]
    assert all(r["node_id"] not in ("a", "f") for r in neigh)
    assert {r["node_id"] for r in rows if r["role"] == "primary"} == {"a", "f"}


def test_ties_broken_by_node_id_and_window_all_gives_no_local_weight(con):
    rows = as_dicts(retrieve(con, ["a"], 1.0, window=None))
    neigh = [r for r in rows if r["role"] == "neighbour"]
    assert all(r["w_local"] is None for r in neigh)
    assert all(r["w_final"] == r["w_global"] for r in neigh)
    # w_global: d .7, e .6, b .5, c .5 (tie -> b before c), f .2
    assert [r["node_id"] for r in neigh] == ["d", "e", "b", "c", "f"]


def test_eta_zero_returns_only_primary_nodes(con):
    rows = as_dicts(retrieve(con, ["a", "f"], 0.0))
    assert [r["role"] for r in rows] == ["primary", "primary"]


def test_no_data_in_window_falls_back_to_w_global(con):
    rows = as_dicts(retrieve(con, ["a"], 1.0, include_unselected="true"))
    e = next(r for r in rows if r["node_id"] == "e")
    assert e["w_local"] is None and e["n_window_days"] == 0 and e["w_final"] == pytest.approx(0.6, abs=1e-12)


def _local_expected(eta, gamma=0.7, beta=0.5, k=7):
    """Independent §7 computation for primary a over C(a) = b, c, d, e, f on the fixture."""
    series = {
        "b": [10 + (i % 3) for i in range(20)],
        "c": [5 + (6 if i >= 17 else 0) for i in range(20)],
        "d": [1 + 0.5 * (i % 2) for i in range(20)],
        "e": [3 + i % 2 for i in range(10)],
        "f": [],
    }
    w_global = {"b": 0.5, "c": 0.5, "d": 0.7, "e": 0.6, "f": 0.2}
    zeta = {}
    for m, vals in series.items():
        if len(vals) < 2:
            zeta[m] = None
            continue
        mu = sum(vals) / len(vals)
        sd = math.sqrt(sum((v - mu) ** 2 for v in vals) / (len(vals) - 1))
        window = [v for i, v in enumerate(vals) if 20 - k <= i < 20]   # days T-6 .. T are indexes 13..19
        zeta[m] = sum(abs(v - mu) / sd for v in window) / len(window) if window and sd > 0 else None
    known = [z for z in zeta.values() if z is not None]
    lo, hi = min(known), max(known)
    y = {m: (eta * ((z - lo) / (hi - lo)) + (1 - eta) * (1 - (z - lo) / (hi - lo))) if z is not None else None
         for m, z in zeta.items()}
    ys = [v for v in y.values() if v is not None]
    mean = sum(ys) / len(ys)
    sd = math.sqrt(sum((v - mean) ** 2 for v in ys) / (len(ys) - 1))
    out = {}
    for m in series:
        if y[m] is None:
            out[m] = (None, w_global[m])
        else:
            wl = 1 / (1 + math.exp(-gamma * (y[m] - mean) / sd))
            out[m] = (wl, (1 - beta) * w_global[m] + beta * wl)
    return zeta, out


@pytest.mark.parametrize("eta", [0.9, 0.2])
def test_local_weights_match_independent_computation(con, eta):
    rows = as_dicts(retrieve(con, ["a"], eta, include_unselected="true"))
    zeta, exp = _local_expected(eta)
    for r in rows:
        if r["role"] != "neighbour":
            continue
        wl, wf = exp[r["node_id"]]
        if zeta[r["node_id"]] is not None:
            assert r["zeta"] == pytest.approx(zeta[r["node_id"]], abs=1e-12)
        if wl is None:
            assert r["w_local"] is None
        else:
            assert r["w_local"] == pytest.approx(wl, abs=1e-12)
        assert r["w_final"] == pytest.approx(wf, abs=1e-12)
    # open question: the abnormal metric c outranks the steady b; closed question: the reverse
    order = [r["node_id"] for r in rows if r["role"] == "neighbour"]
    if eta > 0.5:
        assert order.index("c") < order.index("b")
    else:
        assert order.index("b") < order.index("c")


def test_null_and_unknown_ids_are_not_primary_nodes(con):
    rows = as_dicts(retrieve(con, ["a", None, "not_a_metric"], 0.8))
    prim = {r["node_id"]: r for r in rows if r["role"] == "primary"}
    assert set(prim) == {"a", "not_a_metric"}
    assert prim["a"]["is_selected"] and not prim["not_a_metric"]["is_selected"]
    assert "unknown metric id" in prim["not_a_metric"]["reason"]
    # |V_p| = 1, so k_p = floor(0.8 * 5) = 4 neighbours of a
    assert len([r for r in rows if r["role"] == "neighbour"]) == 4


@pytest.mark.parametrize("eta, window, needle", [(1.5, 7, "eta"), (None, 7, "eta"), (0.5, 0, "window_days")])
def test_bad_arguments_raise(con, eta, window, needle):
    with pytest.raises(duckdb.Error, match=needle):
        con.execute("select * from wag_retrieve(?, ['a'], ?, ?, ?)", [SUBJECT, T, window, eta]).fetchall()


def test_window_all_reports_zeta_but_gives_no_local_weight(con):
    rows = as_dicts(retrieve(con, ["a"], 1.0, window=None))
    b = next(r for r in rows if r["node_id"] == "b")
    assert b["zeta"] is not None and b["n_window_days"] == 20
    assert b["w_local"] is None and b["w_final"] == b["w_global"]


def test_equal_zetas_and_a_single_candidate(con):
    # g: h and i have identical series -> equal zeta -> m = 0.5 -> y equal -> standardised 0
    #    -> w_local = sig(0) = 0.5 -> w_final = 0.5 w_global + 0.25
    rows = as_dicts(retrieve(con, ["g"], 1.0, include_unselected="true"))
    got = {r["node_id"]: r for r in rows if r["role"] == "neighbour"}
    assert got["h"]["m_norm"] == 0.5 and got["i"]["m_norm"] == 0.5
    assert got["h"]["w_local"] == pytest.approx(0.5) and got["h"]["w_final"] == pytest.approx(0.45)
    assert got["i"]["w_final"] == pytest.approx(0.55)
    assert [r["node_id"] for r in rows if r["role"] == "neighbour"] == ["i", "h"]
    # j: a single candidate -> fewer than 2 values -> standardised 0 -> w_local 0.5
    rows = as_dicts(retrieve(con, ["j"], 1.0))
    h = next(r for r in rows if r["node_id"] == "h")
    assert h["w_local"] == pytest.approx(0.5) and h["w_final"] == pytest.approx(0.5 * 0.3 + 0.25)
