"""The paper's evaluation, faithful (issue 26; DESIGN.md §10): Exp-G/L query selection, the authors'
StaticGraph and FullContext conditions, and QueryGen's category-window rule."""

from __future__ import annotations

import json
import shutil
from datetime import date, timedelta
from pathlib import Path

import duckdb
import pytest

from conftest import run_dbt
from wag_cli.catalog import load_catalog
from wag_cli.eval import selection
from wag_cli.eval.conditions import full_context_condition, static_graph
from wag_cli.eval.querygen import MULTI_DAY_CATEGORIES, assign_categories
from wag_cli.eval.run import EXPERIMENTS, RunStats, plan
from wag_cli.eval.selection import Verdict, qualify, select_balanced, select_queries
from wag_cli.eval.tuples import QueryTuple
from wag_cli.retrieve import retrieve


def _q(qid: str, dataset: str, kind: str = "single", metrics=("steps",)) -> dict:
    return {"query_id": qid, "tuple_id": "t" + qid, "kind": kind, "dataset": dataset, "subject_id": f"{dataset}:x",
            "metrics": list(metrics), "reference_day": date(2020, 1, 1), "window_days": 7, "openness": 0.8}


# ---- selection ----

def test_qualify_names_the_first_pair_that_coincides():
    assert qualify({"a": frozenset({"x"}), "b": frozenset({"y"}), "c": frozenset({"x", "y"})}) == (True, "pairwise distinct")
    assert qualify({"a": frozenset({"x"}), "b": frozenset({"y"}), "c": frozenset({"x"})}) == \
        (False, "a and c retrieve the same neighbours")
    assert qualify({"a": frozenset(), "b": frozenset()}) == (False, "a and b retrieve the same neighbours (none)")


def test_selection_keeps_distinct_drops_coinciding_and_never_takes_multi_metric(monkeypatch):
    """A planted query whose four Exp-G weightings retrieve different neighbours is kept; one where
    w_pop and w_prior coincide is dropped; multi-metric and gold questions are never examined."""
    distinct = {"w_prior": {"a"}, "w_pop": {"b"}, "w_ind": {"c"}, "w_global": {"a", "b"}}
    same = {"w_prior": {"a"}, "w_pop": {"a"}, "w_ind": {"c"}, "w_global": {"b"}}
    planted = {"q1": distinct, "q2": same, "q3": distinct}
    seen = []

    def fake_sets(_con, q, experiment, settings=None):
        seen.append(q["query_id"])
        assert experiment == "exp_g"
        return {c: frozenset(s) for c, s in planted[q["query_id"]].items()}

    monkeypatch.setattr(selection, "neighbour_sets", fake_sets)
    queries = [_q("q1", "pmdata"), _q("q2", "pmdata"), _q("m1", "pmdata", "multi", ("steps", "sleep_duration")),
               _q("g1", "pmdata", "gold"), _q("q3", "globem")]
    verdicts = select_queries(None, queries, "exp_g")
    assert seen == ["q1", "q2", "q3"]
    assert [(v.query_id, v.qualified, v.selected) for v in verdicts] == \
        [("q1", True, True), ("q2", False, False), ("q3", True, True)]
    assert verdicts[1].reason == "w_prior and w_pop retrieve the same neighbours"


def test_balanced_selection_takes_datasets_in_turn_and_fills_from_the_others():
    vs = [Verdict(f"p{i}", "pmdata", True, "") for i in range(5)] + [Verdict("g0", "globem", True, ""),
                                                                       Verdict("g1", "globem", False, "")]
    picked = select_balanced(vs, 4)
    assert [v.query_id for v in picked] == ["p0", "g0", "p1", "p2"]   # globem has one qualified: pmdata fills
    assert sum(v.selected for v in vs) == 4


def test_plan_runs_weighting_experiments_only_on_the_selection(tmp_path):
    con = duckdb.connect(str(tmp_path / "e.duckdb"))
    from wag_cli.eval.store import SCHEMA

    con.execute(SCHEMA)
    queries = [_q("q1", "pmdata"), _q("q2", "pmdata"), _q("m1", "pmdata", "multi", ("steps", "sleep_duration")),
               {**_q("x1", "globem"), "in_main": False}]
    tasks = plan(con, queries, ["main", "exp_g", "exp_l"], RunStats(), {"exp_g": {"q1"}, "exp_l": {"q2", "x1"}})
    got = {(t.query["query_id"], t.experiment) for t in tasks}
    assert got == {("q1", "main"), ("q2", "main"), ("m1", "main"), ("q1", "exp_g"), ("q2", "exp_l"), ("x1", "exp_l")}
    assert len(tasks) == 3 * len(EXPERIMENTS["main"]) + len(EXPERIMENTS["exp_g"]) + 2 * len(EXPERIMENTS["exp_l"])
    # without a stored selection the weighting experiments take the single-metric tuple questions only
    tasks = plan(con, queries, ["exp_l"], RunStats())
    assert {t.query["query_id"] for t in tasks} == {"q1", "q2", "x1"}
    con.close()


# ---- QueryGen ----

def test_no_one_day_trend_comparison_or_relationship():
    tuples = [QueryTuple(f"t{i}", "single" if i % 3 else "multi", "pmdata", "pmdata:p01", ("steps",),
                         date(2020, 1, 1), 1 if i % 2 else 7, None, 42, i) for i in range(200)]
    cats = assign_categories(tuples, seed=5)
    one_day = [cats[t.tuple_id] for t in tuples if t.window_days == 1]
    assert len(one_day) == 100 and not set(one_day) & set(MULTI_DAY_CATEGORIES)
    longer = {cats[t.tuple_id] for t in tuples if t.window_days == 7}
    assert set(MULTI_DAY_CATEGORIES) <= longer      # the rule removes them only where they do not fit


# ---- StaticGraph and FullContext on the excerpts ----

def test_full_context_lists_every_metric_with_data_in_the_window(built_db):
    con = duckdb.connect(str(built_db), read_only=True)
    try:
        catalog = load_catalog(con)
        subject, ref, k = "pmdata:p01", date(2020, 1, 20), 7
        sg = retrieve(con, subject_id=subject, metrics=["resting_heart_rate"], reference_day=ref, window_days=k,
                      openness=0.5, method="rag", catalog=catalog)
        full = full_context_condition(con, sg, catalog)
        expected = {r[0] for r in con.execute(
            "select distinct metric_id from metric_values where subject_id = ? and day between ? and ?",
            [subject, ref - timedelta(days=k - 1), ref]).fetchall()}
    finally:
        con.close()
    assert full.method == "full" and [n.metric_id for n in full.primaries] == ["resting_heart_rate"]
    assert {n.metric_id for n in full.nodes} == expected | {"resting_heart_rate"}
    assert len(expected) >= 10
    neigh = [n.metric_id for n in full.neighbours]
    assert neigh == sorted(neigh) and all(n.w_final is None for n in full.neighbours)


def _copy_participant(shared: Path, data: Path, scale: float) -> None:
    """p01's daily Fitbit files, every numeric value multiplied by ``scale`` (the same days and metrics)."""
    src, dst = shared / "pmdata" / "p01" / "fitbit", data / "pmdata" / "p01" / "fitbit"
    dst.mkdir(parents=True)
    for name in ("resting_heart_rate.json", "sleep.json", "lightly_active_minutes.json", "very_active_minutes.json",
                 "moderately_active_minutes.json", "sedentary_minutes.json"):
        rows = json.loads((src / name).read_text())
        if scale != 1.0 and name == "resting_heart_rate.json":
            for r in rows:
                r["value"]["value"] = r["value"]["value"] * scale if r["value"]["value"] else r["value"]["value"]
        elif scale != 1.0 and name.endswith("_minutes.json"):
            for i, r in enumerate(rows):   # reorder the values over the days: correlations change
                r["value"] = rows[(i * 7) % len(rows)]["value"]
        (dst / name).write_text(json.dumps(rows))
    shutil.copytree(shared / "pmdata" / "p01" / "pmsys", data / "pmdata" / "p01" / "pmsys")


@pytest.fixture(scope="module")
def two_builds(shared_data, tmp_path_factory):
    """The same subject twice: as recorded, and with its values changed (same days, same metrics)."""
    out = []
    for scale in (1.0, 0.9):
        tmp = tmp_path_factory.mktemp(f"static{scale}")
        _copy_participant(shared_data, tmp / "data", scale)
        res = run_dbt(["build", "--resource-type", "model", "--resource-type", "seed"],
                      db=tmp / "w.duckdb", data_dir=tmp / "data", target=tmp / "target")
        assert res.success, res.result
        out.append(tmp / "w.duckdb")
    return out


def test_static_graph_neighbours_ignore_the_subjects_own_data(two_builds):
    """StaticGraph's neighbours (ranked by W_prior alone) are the same for the changed data, whose own
    correlations (and so WAG's weights) did change; no personal column reaches the answer."""
    got, w_ind = [], []
    for db in two_builds:
        con = duckdb.connect(str(db), read_only=True)
        try:
            catalog = load_catalog(con)
            args = dict(subject_id="pmdata:p01", metrics=["resting_heart_rate"], reference_day=date(2020, 2, 20),
                        window_days=14, openness=0.9, catalog=catalog)
            sg = static_graph(retrieve(con, method="wag", rank_by="p_prior", **args))
            wag = retrieve(con, method="wag", **args)
            got.append([n.metric_id for n in sg.neighbours])
            w_ind.append({n.metric_id: n.r_s_signed for n in wag.neighbours})
            assert all(n.r_s_signed is None and n.w_final is None and n.w_prior is not None for n in sg.neighbours)
        finally:
            con.close()
    assert got[0] and got[0] == got[1]
    assert w_ind[0] != w_ind[1]          # the change did reach the personal weights
