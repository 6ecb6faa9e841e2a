"""Incremental refresh (issue 10 item 4): a build after new or changed rows for some subjects
recomputes only those subjects (and the population snapshots of their dataset from the first changed
month on), and leaves every table equal to a full rebuild of the same data.

The population is bench/popgen.py's (seeded), small (12 subjects x 75 days), loaded as a wide source.
Changes between the builds: one new day for three subjects, and one value of a fourth subject in its
first month (so month-end snapshots from that month on are stale, not only the last one).
"""

from __future__ import annotations

import os

import sys
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from wag_cli.build import run_build

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
from popgen import generate  # noqa: E402

# tables written outside dbt's models (build state), compared separately or not at all
SNAPSHOT = {"population_as_of": "snapshot"}   # the `appended` builds' settings
STATE_TABLES = {"wag_build_settings", "wag_build_fingerprints", "int_changed_subjects"}


def _tables(db: Path) -> dict[str, pd.DataFrame]:
    """Every base table of the warehouse, rows sorted on all columns (row order is not content)."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        names = [r[0] for r in con.execute(
            "select table_name from information_schema.tables where table_type = 'BASE TABLE'").fetchall()]
        out = {}
        for n in names:
            if n in STATE_TABLES:
                continue
            out[n] = con.execute(f'select * from "{n}" order by all').df()
        return out
    finally:
        con.close()


def _build_change_rebuild(tmp: Path, pop: pd.DataFrame, change, settings: dict | None = None) -> dict:
    """Build ``pop`` (a wide source) into tmp/wag.duckdb, write ``change(pop)`` over the same file, build
    again (incremental) and build the changed file from scratch into tmp/full.duckdb (--full-refresh).
    ``settings``: dbt vars of all three builds. Returns the three BuildResults and tmp."""
    csv = tmp / "pop.csv"
    pop.to_csv(csv, index=False)
    sources = [{"dataset": "sim", "path": str(csv)}]
    empty = tmp / "no_native"
    empty.mkdir()
    out = {"tmp": tmp, "nodes": {"first": [], "incremental": []}}
    out["first"] = run_build(empty, wide_sources=sources, database=tmp / "wag.duckdb", settings=settings,
                             on_node=lambda name, status: out["nodes"]["first"].append(name))
    change(pop).to_csv(csv, index=False)
    out["incremental"] = run_build(empty, wide_sources=sources, database=tmp / "wag.duckdb", settings=settings,
                                   on_node=lambda name, status: out["nodes"]["incremental"].append(name))
    out["full"] = run_build(empty, wide_sources=sources, database=tmp / "full.duckdb", full_refresh=True,
                            settings=settings)
    for step in ("first", "incremental", "full"):
        assert out[step].success, (step, out[step].failures)
    return out


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    pop = generate(12, 75, seed=11)
    subjects = sorted(pop["participant_id"].unique())

    def change(pop):
        # new rows: one more day for three subjects, and a changed value in the first month of a fourth
        last = pd.to_datetime(pop["date"]).max()
        new_day = pop[pop["participant_id"].isin(subjects[:3]) & (pd.to_datetime(pop["date"]) == last)].copy()
        new_day["date"] = (last + pd.Timedelta(days=1)).strftime("%Y-%m-%d")
        changed = pd.concat([pop, new_day], ignore_index=True)
        row = changed.index[(changed["participant_id"] == subjects[5])][3]
        changed.loc[row, "Steps taken"] = 12345
        return changed

    return _build_change_rebuild(tmp_path_factory.mktemp("incremental"), pop, change)


def test_first_build_is_full_and_the_next_is_incremental(builds):
    assert (builds["first"].refresh["mode"], builds["first"].refresh["reason"]) == ("full", "first")
    with duckdb.connect(str(builds["tmp"] / "wag.duckdb"), read_only=True) as con:
        n_series = con.execute("select count(*) from int_metric_series").fetchone()[0]
    assert n_series > 10000, "the population must have series to correlate"
    r = builds["incremental"].refresh
    assert r["mode"] == "incremental"
    # three subjects with a new day and one with a changed value; 12 in all
    assert (r["changed_subjects"], r["subjects"], r["changed_datasets"]) == (4, 12, ["sim"])
    assert (builds["full"].refresh["mode"], builds["full"].refresh["reason"]) == ("full", "full_refresh")


def test_incremental_build_skips_seeds_and_unit_tests(builds):
    """The seeds (in the settings hash, kept in the copied warehouse) and the unit tests (fixture data
    only) ran in the first build and are not run again; the models and data tests are."""
    first, inc = set(builds["nodes"]["first"]), set(builds["nodes"]["incremental"])
    for name in ("metric_catalog", "prior_edges", "spearman_average_ranks_for_ties"):
        assert name in first and name not in inc, name
    assert {"metric_values", "correlations_individual", "edge_weights"} <= inc
    assert any(n.startswith("unique_combination_daily_abnormality") for n in inc)


def test_settings_hash_covers_engine_versions(monkeypatch, tmp_path):
    """Another DuckDB (or dbt) version may compute other bits or other plans: the stored build's
    tables, seeds and unit-test results do not carry over, so the hash differs."""
    import importlib.metadata

    from wag_cli.build import settings_hash
    from wag_cli.paths import project_dir

    before = settings_hash(project_dir(), {"data_dir": str(tmp_path)})
    real = importlib.metadata.version
    monkeypatch.setattr(importlib.metadata, "version", lambda pkg: "0.0.0" if pkg == "duckdb" else real(pkg))
    assert settings_hash(project_dir(), {"data_dir": str(tmp_path)}) != before


def test_incremental_tables_equal_a_full_rebuild(builds):
    inc = _tables(builds["tmp"] / "wag.duckdb")
    full = _tables(builds["tmp"] / "full.duckdb")
    assert sorted(inc) == sorted(full)
    _assert_same_tables(inc, full)


def _assert_same_tables(inc: dict, full: dict) -> None:
    """Same rows; doubles equal up to one unit in the 12th decimal: rho is rounded to 12 decimals and a
    sum over rows in another order (appended vs rebuilt tables) can round the other way, as it does
    between two full builds. Unrounded doubles of large magnitude (subject_metric_stats' mean and sd:
    DuckDB's parallel aggregates combine in thread order) may also differ by a few units in the last
    place: sd 3818.608737537203 against ...2053 (2.3e-12, 5 ulps) failed a run with atol alone, so a
    relative 1e-14 (about 45 ulps) is allowed on top."""
    for name in full:
        pd.testing.assert_frame_equal(inc[name], full[name], check_exact=False, rtol=1e-14, atol=2e-12, obj=name)


def test_changed_settings_force_a_full_build(builds, monkeypatch):
    """Another dbt var value (here eval_seed, through the vars wag build passes) makes the stored
    settings hash differ, so the build starts from an empty file."""
    import wag_cli.build as build_mod

    real = build_mod._dbt_vars
    monkeypatch.setattr(build_mod, "_dbt_vars", lambda *a: {**real(*a), "eval_seed": 43})
    csv = builds["tmp"] / "pop.csv"
    out = run_build(builds["tmp"] / "no_native", wide_sources=[{"dataset": "sim", "path": str(csv)}],
                    database=builds["tmp"] / "wag.duckdb")
    assert out.success, out.failures
    assert (out.refresh["mode"], out.refresh["reason"]) == ("full", "settings")


@pytest.fixture(scope="module")
def appended(tmp_path_factory):
    """8 subjects x 59 days (2021-01-01 .. 2021-02-28, a month-end), then one more day (1 March) for
    two subjects: the old full-history snapshot is the new 28 February month-end snapshot (var
    population_as_of = 'snapshot'; the `builds` fixture above has the default, 'exact')."""
    def change(pop):
        last = pop[pop["date"] == pop["date"].max()]
        new = last[last["participant_id"].isin(sorted(last["participant_id"].unique())[:2])].copy()
        new["date"] = "2021-03-01"
        return pd.concat([pop, new], ignore_index=True)

    out = _build_change_rebuild(tmp_path_factory.mktemp("appended"), generate(8, 59, seed=5), change,
                                settings=SNAPSHOT)
    return out["tmp"], out["incremental"]


def test_appended_month_reuses_the_old_full_history_snapshot(appended):
    tmp, inc = appended
    assert inc.refresh["mode"] == "incremental" and inc.refresh["changed_subjects"] == 2
    inc_tables, full_tables = _tables(tmp / "wag.duckdb"), _tables(tmp / "full.duckdb")
    _assert_same_tables(inc_tables, full_tables)
    snaps = full_tables["correlations_population_snapshots"]
    days = sorted({(str(d)[:10], bool(f)) for d, f in zip(snaps["snapshot_day"], snaps["is_full_history"])})
    # January and February month-ends (the February one reused in the incremental build), 1 March full
    assert days == [("2021-01-31", False), ("2021-02-28", False), ("2021-03-01", True)]


def test_a_build_with_nothing_changed_stops_before_dbt(appended):
    """Same settings, same data files as the stored complete build: no dbt run, no node, the warehouse
    file untouched; a data file with a new modification time (same bytes) runs dbt again, as an
    incremental build that finds no changed subject."""
    tmp, _ = appended
    db, csv = tmp / "wag.duckdb", tmp / "pop.csv"
    sources = [{"dataset": "sim", "path": str(csv)}]
    before = db.stat().st_mtime_ns
    nodes = []
    out = run_build(tmp / "no_native", wide_sources=sources, database=db, settings=SNAPSHOT,
                    on_node=lambda name, status: nodes.append(name))
    assert out.success and out.refresh == {"mode": "unchanged", "subjects": 8}
    assert nodes == [] and out.n_nodes == 0
    assert db.stat().st_mtime_ns == before
    st = csv.stat()
    os.utime(csv, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    out = run_build(tmp / "no_native", wide_sources=sources, database=db, settings=SNAPSHOT,
                    on_node=lambda name, status: nodes.append(name))
    assert out.success, out.failures
    assert out.refresh["mode"] == "incremental" and out.refresh["changed_subjects"] == 0
    assert "correlations_individual" in nodes


def test_a_hand_run_dbt_build_makes_the_next_wag_build_full(appended):
    """A `dbt build` run by hand may use other vars than `wag build` stored a hash of: its on-run-end
    hook drops that hash, so the next `wag build` starts from an empty file."""
    import json

    from conftest import run_dbt
    from wag_cli.build import _stored_settings

    tmp, _ = appended
    db = tmp / "wag.duckdb"
    assert _stored_settings(db) is not None
    wide = json.dumps({"wide_sources": [{"dataset": "sim", "path": str(tmp / "pop.csv")}], "min_samples": 12})
    res = run_dbt(["run"], db=db, data_dir=tmp / "no_native", target=tmp / "target", extra_vars=wide)
    assert res.success
    assert _stored_settings(db) is None
