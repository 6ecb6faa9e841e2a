"""eval_query_tuples (DESIGN.md §10, §4) on the real-excerpt build: stratified over datasets,
windows and abnormal levels, and no look-ahead — every single tuple's level is recomputed here with
pandas/numpy from metric_values rows on days <= t only."""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import pytest

WINDOWS = {"1", "7", "14", "30", "all"}
LEVELS = {"low", "medium", "high", "missing"}


@pytest.fixture(scope="module")
def tuples(built_db):
    con = duckdb.connect(str(built_db), read_only=True)
    try:
        df = con.execute("select * from eval_query_tuples order by sample_order").df()
        selected = con.execute(
            "select distinct dataset from participant_selection where is_selected").df()["dataset"].tolist()
        values = con.execute(
            "select subject_id, metric_id, day, value from metric_values where value is not null").df()
    finally:
        con.close()
    values["day"] = pd.to_datetime(values["day"])
    return df, set(selected), values


def test_every_dataset_window_and_level_appears(tuples):
    df, datasets, _ = tuples
    assert set(df["dataset"]) == datasets
    single = df[df["kind"] == "single"]
    assert set(single["window_label"]) == WINDOWS
    assert set(single["abnormal_level"]) == LEVELS
    assert set(df.loc[df["kind"] == "multi", "window_label"]) == WINDOWS
    for ds in datasets:   # each dataset has both kinds
        assert set(df.loc[df["dataset"] == ds, "kind"]) == {"single", "multi"}
    # the prefix property the CLI relies on (`--n`): the first 13 single tuples (4 datasets + 5
    # windows + 4 levels) already cover every value of each of the three strata
    head = single.head(len(datasets) + len(WINDOWS) + len(LEVELS))
    assert set(head["dataset"]) == datasets
    assert set(head["window_label"]) == WINDOWS
    assert set(head["abnormal_level"]) == LEVELS
    assert list(df["sample_order"]) == list(range(1, len(df) + 1))


def _level_as_of(series: pd.Series, t: pd.Timestamp, window: str) -> tuple[str, float]:
    """§4 level of (s, m, t, k) using only days <= t: baseline, zetas and tertile cuts."""
    hist = series[series.index <= t]
    mu, sd = hist.mean(), hist.std(ddof=1)
    z = (hist - mu).abs() / sd
    if window == "all":
        zeta = z.expanding().mean()
    else:
        zeta = z.rolling(f"{int(window)}D").mean()        # calendar days [t' - k + 1, t']
    p33, p66 = np.quantile(zeta.values, [1 / 3, 2 / 3])    # linear interpolation = quantile_cont
    zt = zeta.loc[t]
    level = "low" if zt <= p33 else "medium" if zt <= p66 else "high"
    return level, float(zt)


def test_levels_use_no_day_after_t(tuples):
    df, _, values = tuples
    single = df[df["kind"] == "single"]
    by_key = {k: g.set_index("day")["value"].sort_index() for k, g in values.groupby(["subject_id", "metric_id"])}
    checked = 0
    for row in single.itertuples():
        series = by_key[(row.subject_id, row.metric_id)]
        t = pd.Timestamp(row.reference_day)
        has_value = t in series.index
        if row.abnormal_level == "missing":
            assert not has_value
            assert (series.index < t).sum() >= 14            # enough history before t
            continue
        assert has_value
        level, zeta = _level_as_of(series, t, row.window_label)
        assert row.abnormal_level == level, (row.tuple_id, row.window_label)
        assert row.zeta_asof == pytest.approx(zeta, rel=1e-9, abs=1e-12)
        assert row.n_history_days == int((series.index <= t).sum())
        checked += 1
    assert checked >= 50


def test_multi_tuples_have_two_or_three_metrics_with_data_on_t(tuples):
    df, _, values = tuples
    have = set(zip(values["subject_id"], values["metric_id"], values["day"]))
    multi = df[df["kind"] == "multi"]
    assert len(multi) > 0
    for row in multi.itertuples():
        metrics = list(row.metrics)
        assert 2 <= len(metrics) <= 3 and len(set(metrics)) == len(metrics)
        for m in metrics:
            assert (row.subject_id, m, pd.Timestamp(row.reference_day)) in have
        assert row.abnormal_level is None or pd.isna(row.abnormal_level)
