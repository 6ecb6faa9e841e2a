"""The pooled population snapshots by each method equal scipy.stats.spearmanr on the pooled
subject-days <= each snapshot day of the real excerpts.

The default build ranks each series once with bit-field corrections (macros/corrected_ranks.sql,
issue 31; 'packed'); the unpacked form ('paired': Spark, or more fields than fit) builds the pairs in
the query and ranks them by windows or by value counts (var pooled_ranks, issue 10). Here the table
is rebuilt with each method on a copy of the warehouse and checked against scipy, independently of
any SQL path.
"""

from __future__ import annotations

import shutil

import duckdb
import numpy as np
import pytest
from scipy.stats import spearmanr

from conftest import run_dbt

TOL = 1e-9


# every method in population_as_of = 'snapshot' mode (the default, 'exact', stores only the full history)
METHODS = {
    "packed": "{population_as_of: snapshot, corrected_ranks: packed}",   # pooled sums from one row per (subject, day)
    "packed_join": "{population_as_of: snapshot, corrected_ranks: packed, pooled_form: join, individual_form: join}",
    "paired_value_counts": "{population_as_of: snapshot, corrected_ranks: paired, pooled_ranks: value_counts}",
    "paired_window": "{population_as_of: snapshot, corrected_ranks: paired, pooled_ranks: window}",
}


@pytest.fixture(scope="module", params=list(METHODS))
def method_db(request, built_db, shared_data, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(request.param)
    db = tmp / "wag.duckdb"
    shutil.copy(built_db, db)
    res = run_dbt(["run", "--select", "correlations_population_snapshots", "--full-refresh"], db=db,
                  data_dir=shared_data, target=tmp / "target", extra_vars=METHODS[request.param])
    assert res.success, res.exception
    return db


@pytest.mark.parametrize("dataset", ["pmdata", "lifesnaps", "globem", "ifh_affect"])
def test_pooled_ranks_equal_scipy_on_every_snapshot(method_db, dataset):
    con = duckdb.connect(str(method_db), read_only=True)
    try:
        snaps = con.execute(
            "select snapshot_day, node_a, node_b, n, n_subjects, rho_unchecked, variance_reason "
            "from correlations_population_snapshots where dataset = ?", [dataset]).df()
        values = con.execute(
            "select subject_id, metric_id, day, value from metric_values "
            "where dataset = ? and value is not null", [dataset]).df()
    finally:
        con.close()
    assert len(snaps) > 0 and snaps["snapshot_day"].nunique() >= 2, "expected month-end and full-history snapshots"
    wide = values.pivot_table(index=["subject_id", "day"], columns="metric_id", values="value", aggfunc="first")
    days = wide.index.get_level_values("day")
    checked = 0
    for row in snaps.itertuples():
        sub = wide.loc[days <= row.snapshot_day, [row.node_a, row.node_b]].dropna()
        assert len(sub) == row.n, (row.snapshot_day, row.node_a, row.node_b)
        assert sub.index.get_level_values("subject_id").nunique() == row.n_subjects
        a, b = sub[row.node_a].to_numpy(), sub[row.node_b].to_numpy()
        if np.ptp(a) == 0 or np.ptp(b) == 0:
            assert row.rho_unchecked is None or np.isnan(row.rho_unchecked)
            assert row.variance_reason in ("zero_variance_x", "zero_variance_y")
            continue
        expected = float(spearmanr(a, b).statistic)
        assert abs(row.rho_unchecked - expected) < TOL, (row.snapshot_day, row.node_a, row.node_b)
        checked += 1
    assert checked > 0
