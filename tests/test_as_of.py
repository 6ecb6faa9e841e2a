"""Global weights as of the reference day (DESIGN.md §5-§6 "As of", §8): no look-ahead, valid
candidates, valid population evidence.

* wag_edge_weights_as_of at a day t equals an independent scipy + numpy computation on the days <= t
  (individual and population correlations, min_pop_subjects, C_s(x), every HBM stage);
* retrieval and the answer's quoted correlations at t are identical whether the later days exist,
  are deleted, or are replaced by data of a different character (for every subject of the dataset,
  so the population stage is covered too);
* on the real excerpts, no retrieved neighbour is a metric the subject has no data or constant data
  for up to t, and no population correlation from fewer than 3 subjects is used or shown.
"""

from __future__ import annotations

import math
import shutil
from datetime import timedelta

import duckdb
import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from conftest import run_dbt
from test_graph_weights import TOL, hbm_weights

MIN_SAMPLES = 10
MIN_POP_SUBJECTS = 3
SUBJECT = "pmdata:p01"
PRIMARY = "deep_sleep_duration"


def _spearman(a: np.ndarray, b: np.ndarray, n_subjects: int = MIN_POP_SUBJECTS) -> float | None:
    if len(a) < MIN_SAMPLES or np.ptp(a) == 0 or np.ptp(b) == 0 or n_subjects < MIN_POP_SUBJECTS:
        return None
    return float(spearmanr(a, b).statistic)


def _fisher(r: float | None, n: int) -> tuple[float, float]:
    if r is None:
        return np.nan, np.nan
    return math.atanh(min(abs(r), 1 - 1e-8)), 1 / math.sqrt(n - 3)


@pytest.fixture(scope="module")
def ref_day(built_db):
    con = duckdb.connect(str(built_db), read_only=True)
    try:
        first = con.execute("select min(day) from metric_values where subject_id = ?", [SUBJECT]).fetchone()[0]
    finally:
        con.close()
    return first + timedelta(days=30)


@pytest.fixture(scope="module")
def snapshot_db(built_db, shared_data, tmp_path_factory):
    """A copy of the warehouse in var population_as_of = 'snapshot' mode (the default is 'exact'): the
    month-end snapshots built by `dbt run` of correlations_population_snapshots, whose on-run-end hook
    installs the table macros in that mode (the mode is chosen when the macros are created)."""
    tmp = tmp_path_factory.mktemp("snapshot")
    db = tmp / "wag.duckdb"
    shutil.copy(built_db, db)
    res = run_dbt(["run", "--select", "correlations_population_snapshots", "--full-refresh"], db=db,
                  data_dir=shared_data, target=tmp / "target", extra_vars="{population_as_of: snapshot}")
    assert res.success, res.exception
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("select count(*) from correlations_population_snapshots where not is_full_history"
                           ).fetchone()[0] > 0
    return db


@pytest.mark.parametrize("which", ["day 30", "dataset's last day", "day 30, exact population",
                                   "dataset's last day, exact population"])
def test_as_of_weights_equal_scipy_numpy_on_days_up_to_t(built_db, snapshot_db, ref_day, which):
    """Individual correlations over the subject's days <= t; population correlations from the last
    monthly snapshot <= t (§6 "As of": the dataset's subject-days up to the last month-end <= t, or the
    whole history once t reaches the dataset's last paired day), or with population_as_of = 'exact'
    over the dataset's subject-days <= t: both must equal scipy on those days."""
    exact = which.endswith("exact population")
    con = duckdb.connect(str(built_db if exact else snapshot_db), read_only=True)
    if which.startswith("dataset's last day"):
        ref_day = con.execute("select max(day) from metric_values where dataset = 'pmdata'").fetchone()[0]
    try:
        mv = con.execute("select subject_id, metric_id, day, value from metric_values "
                         "where dataset = 'pmdata' and value is not null and day <= ?", [ref_day]).df()
        edges = con.sql("select * from edges").df()
        mv_all = con.execute("select subject_id, metric_id, day, value from metric_values "
                             "where dataset = 'pmdata' and value is not null").df()
        got = con.execute("select * from wag_edge_weights_as_of(?, ?, [?]) order by node_y",
                          [SUBJECT, ref_day, PRIMARY]).df()
    finally:
        con.close()
    assert (got["as_of_day"] == pd.Timestamp(ref_day)).all()
    # the population snapshot day, independently: the last month-end <= t, or the dataset's last day on
    # which any two edge metrics are both recorded (the full history) when that is <= t
    t = pd.Timestamp(ref_day)
    month_end = t if t == t + pd.offsets.MonthEnd(0) else t - pd.offsets.MonthEnd(1)
    wide_all = mv.pivot_table(index=["subject_id", "day"], columns="metric_id", values="value")
    wide_history = mv_all.pivot_table(index=["subject_id", "day"], columns="metric_id", values="value")
    paired_days = [wide_history[[a, b]].dropna().index.get_level_values("day").max()
                   for a, b in zip(edges.node_a, edges.node_b) if a in wide_history and b in wide_history]
    last_paired = max(d for d in paired_days if pd.notna(d))
    snapshot = max(month_end, pd.Timestamp(last_paired)) if pd.Timestamp(last_paired) <= t else month_end
    if exact:
        snapshot = t
    assert (got["pop_as_of_day"] == snapshot).all()
    pooled = mv[mv["day"] <= snapshot]
    mine = mv[mv.subject_id == SUBJECT]
    varying = {m for m, g in mine.groupby("metric_id") if g["value"].nunique() >= 2}
    nbrs = pd.concat([edges.loc[edges.node_a == PRIMARY, ["node_b", "w_prior"]].rename(columns={"node_b": "y"}),
                      edges.loc[edges.node_b == PRIMARY, ["node_a", "w_prior"]].rename(columns={"node_a": "y"})])
    cand = nbrs[nbrs["y"].isin(varying)].sort_values("y")
    assert list(got["node_y"]) == list(cand["y"])          # C_s(x) as of t, nothing more or less
    wide = wide_all
    wide_pooled = pooled.pivot_table(index=["subject_id", "day"], columns="metric_id", values="value")
    fz_pop, se_pop, fz_s, se_s = [], [], [], []
    for y, row in zip(cand["y"], got.itertuples()):
        pair = wide_pooled[[PRIMARY, y]].dropna() if PRIMARY in wide_pooled and y in wide_pooled else pd.DataFrame()
        n_subj = pair.index.get_level_values("subject_id").nunique() if len(pair) else 0
        r_pop = _spearman(pair[PRIMARY].to_numpy(), pair[y].to_numpy(), n_subj) if len(pair) else None
        mine_pair = wide[[PRIMARY, y]].dropna() if PRIMARY in wide and y in wide else pd.DataFrame()
        own = mine_pair.loc[SUBJECT] if len(mine_pair) and SUBJECT in mine_pair.index.get_level_values(0) else pd.DataFrame()
        r_s = _spearman(own[PRIMARY].to_numpy(), own[y].to_numpy()) if len(own) else None
        assert row.n_s == len(own) and row.n_pop == len(pair), y
        for r, got_r in ((r_pop, row.r_pop_signed), (r_s, row.r_s_signed)):
            assert (r is None) == pd.isna(got_r), y
            if r is not None:
                assert abs(got_r - r) < TOL, y
        if r_pop is None:
            assert row.r_pop_reason is not None
        a, b = _fisher(r_pop, len(pair))
        fz_pop.append(a), se_pop.append(b)
        a, b = _fisher(r_s, len(own))
        fz_s.append(a), se_s.append(b)
    res = hbm_weights(cand["w_prior"].to_numpy(dtype=float), np.array(fz_pop), np.array(se_pop),
                      np.array(fz_s), np.array(se_s))
    for name, column in (("p", "p_prior"), ("o", "o_pop"), ("i", "i_ind"), ("mu_pop", "mu_pop"),
                         ("mu_s", "mu_s"), ("w", "w_global")):
        a = got[column].to_numpy(dtype=float)
        assert np.array_equal(np.isnan(a), np.isnan(res[name])), column
        ok = ~np.isnan(a)
        assert np.allclose(a[ok], res[name][ok], rtol=0, atol=TOL), column
    assert list(got["fallback"]) == res["fallback"]
    if which == "day 30":
        # the subject had ~30 days by t: no correlation may rest on more days than that
        assert got["n_s"].max() <= 31


def _retrieval_snapshot(db, ref_day):
    from wag_cli.answer.offline import offline_answer
    from wag_cli.catalog import load_catalog
    from wag_cli.retrieve import retrieve

    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute(
            "select * exclude (zeta, n_window_days) from wag_retrieve(?, [?, 'steps'], ?, 7, 0.8, "
            "include_unselected := true) order by primary_node, rank, node_id", [SUBJECT, PRIMARY, ref_day]).fetchall()
        catalog = load_catalog(con)
        sg = retrieve(con, subject_id=SUBJECT, metrics=[PRIMARY, "steps"], reference_day=ref_day, window_days=7,
                      openness=0.8, catalog=catalog)
    finally:
        con.close()
    return rows, offline_answer("How is my deep sleep and how are my steps?", sg).text


def test_no_look_ahead_later_days_change_nothing(built_db, ref_day, tmp_path):
    """Later days deleted, or replaced by data of another character for every subject of the dataset:
    retrieval rows (every weight column, individual and population stage) and the answer stay equal."""
    base_rows, base_answer = _retrieval_snapshot(built_db, ref_day)
    assert any(r for r in base_rows)
    variants = {}
    for name in ("deleted", "changed"):
        db = tmp_path / f"{name}.duckdb"
        shutil.copy(built_db, db)
        con = duckdb.connect(str(db))
        try:
            con.execute("delete from metric_values where dataset = 'pmdata' and day > ?", [ref_day])
            if name == "changed":
                # 60 later days per subject where every metric is one perfectly shared ramp
                con.execute("""
                    insert into metric_values
                    select s.dataset, s.subject_id, m.metric_id, cast(? as date) + cast(i as integer), 1000.0 + i, null
                    from (select distinct dataset, subject_id from metric_values where dataset = 'pmdata') as s,
                         (select distinct metric_id from metric_values where dataset = 'pmdata' and value is not null) as m,
                         range(1, 61) as t(i)""", [ref_day])
        finally:
            con.close()
        variants[name] = _retrieval_snapshot(db, ref_day)
    for name, (rows, answer) in variants.items():
        assert len(rows) == len(base_rows), name
        for got, want in zip(rows, base_rows):
            # ids, ranks, counts and reasons exact; weights equal up to summation order (parallel aggregates)
            assert len(got) == len(want)
            for g, w in zip(got, want):
                if isinstance(w, float) and g is not None:
                    assert abs(g - w) < 1e-12, (name, got, want)
                else:
                    assert g == w, (name, got, want)
        assert answer == base_answer, name


def test_retrieved_neighbours_have_varying_data_and_valid_population_evidence(built_db):
    con = duckdb.connect(str(built_db), read_only=True)
    try:
        cases = con.sql("""
            select subject_id, metric_id, min(day) + cast(0.5 * (max(day) - min(day)) as integer) as t
            from metric_values where value is not null
            group by subject_id, metric_id having count(*) >= 20
            qualify row_number() over (partition by subject_id order by count(*) desc, metric_id) <= 2""").fetchall()
        assert len(cases) >= 20
        n_neighbours = 0
        for subject, metric, t in cases:
            rows = con.execute(
                "select node_id, r_pop_signed, n_pop_subjects from wag_retrieve(?, [?], ?, 7, 1.0) "
                "where role = 'neighbour'", [subject, metric, t]).fetchall()
            for node, r_pop, n_pop_subjects in rows:
                distinct = con.execute(
                    "select count(distinct value) from metric_values where subject_id = ? and metric_id = ? "
                    "and day <= ? and value is not null", [subject, node, t]).fetchone()[0]
                assert distinct >= 2, (subject, metric, t, node)
                if r_pop is not None:
                    assert n_pop_subjects >= MIN_POP_SUBJECTS, (subject, metric, node)
                n_neighbours += 1
        # the full-history table keeps the same rule
        bad = con.execute("select count(*) from edge_weights where r_pop is not null and n_pop_subjects < 3").fetchone()[0]
        assert bad == 0
    finally:
        con.close()
    assert n_neighbours >= 50


@pytest.mark.parametrize("mode", ["snapshot", "exact"])
def test_retrieval_at_the_last_day_reads_the_stored_weights_unchanged(built_db, snapshot_db, mode):
    """At or after the subject's last day and the dataset's full-history snapshot, wag_retrieve reads
    edge_weights instead of recomputing (§6: the full-history table is that case). The weights it
    ranks must equal wag_edge_weights_as_of at that day (checked against scipy + numpy above), for
    every subject of the excerpts; with a non-default alpha the per-query computation is used. Both
    population modes (pop_as_of_day is the snapshot day, or t itself in 'exact' mode)."""
    con = duckdb.connect(str(snapshot_db if mode == "snapshot" else built_db), read_only=True)
    cols = ["w_global", "r_s_signed", "r_pop_signed", "n_s", "n_pop", "n_pop_subjects", "mu_pop", "mu_s",
            "fallback", "pop_as_of_day"]
    try:
        cases = con.sql("""
            select v.subject_id, greatest(max(v.day), any_value(p.snapshot_day)) as t
            from metric_values as v
            inner join correlations_population_snapshots as p on p.dataset = v.dataset and p.is_full_history
            where v.value is not null
            group by v.subject_id""").fetchall()
        assert len(cases) >= 10
        primaries = [r[0] for r in con.execute(
            "select node_a from edges union select node_b from edges order by 1 limit 3").fetchall()]
        n_rows = 0
        for subject, t in cases:
            for kwargs, alpha_pop in (("", None), (", alpha_pop := ?", 3.0)):
                args = [subject, primaries, t] + ([alpha_pop] if alpha_pop else [])
                got = con.execute(
                    f"select primary_node, node_id, {', '.join(cols)} from wag_retrieve(?, ?, ?, 7, 1.0, "
                    f"include_unselected := true{kwargs}) where role = 'neighbour' order by 1, 2", args).fetchall()
                args = [subject, t, primaries] + ([alpha_pop] if alpha_pop else [])
                want = con.execute(
                    f"select node_x, node_y, {', '.join(cols)} from wag_edge_weights_as_of(?, ?, ?{kwargs}) "
                    f"where node_y not in (select unnest(?)) order by 1, 2", args + [primaries]).fetchall()
                assert len(got) == len(want), (subject, t, alpha_pop)
                for g, w in zip(got, want):
                    for name, a, b in zip(["x", "y"] + cols, g, w):
                        if isinstance(a, float) and isinstance(b, float):
                            assert a == pytest.approx(b, rel=1e-12, abs=1e-12), (subject, name, g, w)
                        else:
                            assert a == b, (subject, name, g, w)
                n_rows += len(got)
    finally:
        con.close()
    assert n_rows >= 100


def test_the_default_build_ranks_only_the_full_history(built_db):
    """var population_as_of defaults to 'exact' (DESIGN.md §6's definition, issue 31): the build stores
    no month-end snapshot, and an as-of query names t itself as the population's last day."""
    with duckdb.connect(str(built_db), read_only=True) as con:
        kinds = con.execute("select distinct is_full_history from correlations_population_snapshots").fetchall()
        assert kinds == [(True,)]
        subject, t = con.execute("select subject_id, min(day) + 40 from metric_values where dataset = 'pmdata' "
                                 "group by subject_id order by subject_id limit 1").fetchone()
        days = con.execute("select distinct pop_as_of_day from wag_edge_weights_as_of(?, ?, ['steps_taken'])",
                           [subject, t]).fetchall()
    assert days == [(t,)]
