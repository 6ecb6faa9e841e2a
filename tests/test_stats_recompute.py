"""subject_metric_stats, subject_summary and daily_abnormality against an independent pandas/numpy
recomputation (DESIGN.md §3-§4), for every subject of one dataset of the real excerpts."""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import pytest

DATASET = "pmdata"
TOL = 1e-9


def demographic_ids() -> set[str]:
    """Static traits (catalog category Demographic) are not daily observations (§3 T_s)."""
    import csv
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "seeds" / "metric_catalog.csv"
    return {r["metric_id"] for r in csv.DictReader(open(path, newline="")) if r["category"] == "Demographic"}


def ratio_ids() -> set[str]:
    """Metrics whose catalog ratio_scale is true: the only ones with a CV (issue 9 item 7)."""
    import csv
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "seeds" / "metric_catalog.csv"
    return {r["metric_id"] for r in csv.DictReader(open(path, newline="")) if r["ratio_scale"] == "true"}


@pytest.fixture(scope="module")
def frames(built_db):
    con = duckdb.connect(str(built_db), read_only=True)
    try:
        mv = con.sql(f"select * from metric_values where dataset = '{DATASET}'").df()
        mv = mv[~mv["metric_id"].isin(demographic_ids())]
        stats = con.sql(f"select * from subject_metric_stats where dataset = '{DATASET}'").df()
        abn = con.sql(f"select * from daily_abnormality where dataset = '{DATASET}'").df()
        summ = con.sql(f"select * from subject_summary where dataset = '{DATASET}'").df()
    finally:
        con.close()
    for df in (mv, abn):
        df["day"] = pd.to_datetime(df["day"])
    return mv, stats, abn, summ


def expected_stats(mv: pd.DataFrame) -> pd.DataFrame:
    numeric = mv[mv["value"].notna()]
    metrics = sorted(numeric["metric_id"].unique())
    rows = []
    for subject, g_all in mv.groupby("subject_id"):
        n_period = (g_all["day"].max() - g_all["day"].min()).days + 1
        g = numeric[numeric["subject_id"] == subject]
        for m in metrics:
            v = g.loc[g["metric_id"] == m, "value"].to_numpy(dtype=float)
            n = len(v)
            mean = v.mean() if n else np.nan
            sd = v.std(ddof=1) if n >= 2 else np.nan
            cv = sd / abs(mean) if n >= 2 and abs(mean) >= 1e-9 and m in ratio_ids() else np.nan
            rows.append(dict(subject_id=subject, metric_id=m, n_period_days=n_period, n_days=n,
                             missing_fraction=1 - n / n_period, mean_value=mean, sd_value=sd, cv=cv))
    return pd.DataFrame(rows)


def assert_close(a, b, what):
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    assert np.array_equal(np.isnan(a), np.isnan(b)), f"{what}: NULL pattern differs"
    ok = ~np.isnan(a)
    assert np.allclose(a[ok], b[ok], rtol=0, atol=TOL), f"{what}: max diff {np.max(np.abs(a[ok] - b[ok]))}"


def test_subject_metric_stats_match_pandas(frames):
    mv, stats, _, _ = frames
    exp = expected_stats(mv)
    got = stats.merge(exp, on=["subject_id", "metric_id"], how="outer", suffixes=("", "_exp"), indicator=True)
    assert (got["_merge"] == "both").all(), got.loc[got["_merge"] != "both", ["subject_id", "metric_id", "_merge"]]
    assert len(exp) > 0 and exp["subject_id"].nunique() >= 4
    for col in ("n_period_days", "n_days", "missing_fraction", "mean_value", "sd_value", "cv"):
        assert_close(got[col], got[col + "_exp"], col)


def test_subject_summary_matches_pandas(frames):
    mv, _, _, summ = frames
    exp = expected_stats(mv)
    agg = exp.groupby("subject_id").agg(md_s=("missing_fraction", "mean"), cv_s=("cv", "sum"))
    for _, r in summ.iterrows():
        g = mv[mv["subject_id"] == r["subject_id"]]
        assert r["vl_s"] == (g["day"].max() - g["day"].min()).days
        assert abs(r["md_s"] - agg.loc[r["subject_id"], "md_s"]) < TOL
        assert abs(r["cv_s"] - agg.loc[r["subject_id"], "cv_s"]) < TOL


def test_daily_abnormality_matches_pandas(frames):
    mv, stats, abn, _ = frames
    numeric = mv[mv["value"].notna()]
    checked = 0
    for (subject, metric), g in numeric.groupby(["subject_id", "metric_id"]):
        s = stats[(stats.subject_id == subject) & (stats.metric_id == metric)].iloc[0]
        days = pd.date_range(pd.Timestamp(s["first_day"]), pd.Timestamp(s["last_day"]), freq="D")
        v = g.set_index("day")["value"].reindex(days)
        mu, sd = v.mean(), v.std(ddof=1)
        z = (v - mu).abs() / sd if (pd.notna(sd) and sd > 0) else pd.Series(np.nan, index=days)
        got = abn[(abn.subject_id == subject) & (abn.metric_id == metric)].set_index("day").reindex(days)
        assert got["zeta_1"].notna().sum() == z.notna().sum()
        for k in (1, 7, 14, 30):
            exp_k = z.rolling(k, min_periods=1).mean()
            assert_close(got[f"zeta_{k}"], exp_k, f"{subject} {metric} zeta_{k}")
            exp_n = v.notna().astype(int).rolling(k, min_periods=1).sum()
            assert (got[f"n_w_{k}"].to_numpy() == exp_n.to_numpy()).all()
        assert_close(got["zeta_all"], z.expanding(min_periods=1).mean(), f"{subject} {metric} zeta_all")
        # tertile levels (linear-interpolation quantiles) of every window, 'missing' where the day's
        # value is missing
        for k in (1, 7, 14, 30, "all"):
            zk = z.expanding(min_periods=1).mean() if k == "all" else z.rolling(k, min_periods=1).mean()
            got_level = np.array([x if isinstance(x, str) else None for x in got[f"level_{k}"]], dtype=object)
            if not zk.notna().any():                   # sigma 0: no zeta, so no level on days with a value
                assert list(got_level) == list(np.where(v.isna(), "missing", None)), f"{subject} {metric} level_{k}"
                continue
            observed = zk[v.notna()].dropna()          # the (s, m, k) samples: days with a value
            p33, p66 = np.quantile(observed, [1 / 3, 2 / 3])
            exp_level = np.where(v.isna(), "missing",
                         np.where(zk.isna(), None,
                         np.where(zk <= p33, "low", np.where(zk <= p66, "medium", "high"))))
            # a zeta within float noise of a cut point may fall either side: skip those days
            near_cut = (np.abs(zk - p33) < 1e-9) | (np.abs(zk - p66) < 1e-9)
            keep = ~near_cut.to_numpy()
            assert list(got_level[keep]) == list(exp_level[keep]), f"{subject} {metric} level_{k}"
        checked += 1
    assert checked >= 20


def test_subject_mutual_information_matches_numpy(frames):
    """MI_s (DESIGN.md §3): 5 quantile bins per metric by rank (ties share a bin: bin = 1 +
    floor(5 (rank_min - 1) / n)), plug-in MI in nats over each pair's paired days, pairs with < 10
    paired days skipped, summed over pairs."""
    mv, _, _, summ = frames
    numeric = mv[mv["value"].notna()]
    for subject, g in numeric.groupby("subject_id"):
        bins = {}
        for metric, gm in g.groupby("metric_id"):
            r = gm["value"].rank(method="min").to_numpy()
            b = np.minimum(5, 1 + np.floor(5 * (r - 1) / len(gm)))
            bins[metric] = pd.Series(b, index=gm["day"].to_numpy())
        total, n_pairs = 0.0, 0
        names = sorted(bins)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                pair = pd.concat([bins[a].rename("a"), bins[b].rename("b")], axis=1, join="inner")
                n = len(pair)
                if n < 10:
                    continue
                joint = pair.value_counts().to_numpy() / n
                pa = pair["a"].value_counts() / n
                pb = pair["b"].value_counts() / n
                mi = 0.0
                for (xa, xb), c in pair.value_counts().items():
                    p = c / n
                    mi += p * np.log(p / (pa[xa] * pb[xb]))
                assert abs(joint.sum() - 1) < 1e-12
                total += mi
                n_pairs += 1
        row = summ[summ.subject_id == subject].iloc[0]
        assert row["n_mi_pairs"] == n_pairs
        assert abs(row["mi_s"] - total) < 1e-9, subject
