"""The corrected-rank identity behind the correlation models (DESIGN.md §5, issue 31), checked in
Python against scipy before any SQL uses it.

For a series x on days D_x and a partner y on days D_y, the average rank of x on a common day
d in C = D_x ∩ D_y among the common days is

    rank_C(d) = rank_Dx(d) - #{m in D_x \\ D_y : x_m < x_d} - 1/2 #{m in D_x \\ D_y : x_m = x_d}

so each series is ranked once over its own days and the partner's missing days only correct it.
The SQL (macros/corrected_ranks.sql) works with doubled ranks (integers) and packs the per-partner
counts into bit fields of one running sum per series:

    2 rank_Dx(d)   = rank() + count of values <= x_d          (positions a..b of the tie group: a + b)
    2 corr(d; y)   = 2 * (count of y-missing days with x <= x_d) - (count of y-missing days with x = x_d)

Here both forms, the packed one with Python's integers as the bit fields, equal
scipy.stats.spearmanr on the pairwise-complete days, for random series with gaps and ties.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import rankdata, spearmanr


def _pearson(a: np.ndarray, b: np.ndarray) -> float | None:
    """Pearson correlation from exact integer sums (as the SQL: n Σab − Σa Σb over the variances)."""
    n = len(a)
    a = [int(v) for v in a]
    b = [int(v) for v in b]
    sa, sb = sum(a), sum(b)
    var_a = n * sum(v * v for v in a) - sa * sa
    var_b = n * sum(v * v for v in b) - sb * sb
    if var_a <= 0 or var_b <= 0:
        return None
    return (n * sum(u * v for u, v in zip(a, b)) - sa * sb) / float(np.sqrt(float(var_a)) * np.sqrt(float(var_b)))


def _doubled_ranks(values: np.ndarray) -> np.ndarray:
    """2 x average rank = rank() (first position of the tie group) + count of values <= v (its last)."""
    first = rankdata(values, method="min")
    last = rankdata(values, method="max")
    return (first + last).astype(np.int64)


def corrected_spearman(x: dict, y: dict) -> float | None:
    """Spearman of x and y on their common days from x and y each ranked once over their own days."""
    common = sorted(set(x) & set(y))
    days_x, days_y = sorted(x), sorted(y)
    vx = np.array([x[d] for d in days_x])
    vy = np.array([y[d] for d in days_y])
    rx = dict(zip(days_x, _doubled_ranks(vx)))
    ry = dict(zip(days_y, _doubled_ranks(vy)))
    miss_x = np.array([x[d] for d in days_x if d not in y])      # D_x \ D_y
    miss_y = np.array([y[d] for d in days_y if d not in x])      # D_y \ D_x

    def corr2(missing: np.ndarray, v: float) -> int:
        return int(2 * np.sum(missing < v) + np.sum(missing == v))

    a = np.array([rx[d] - corr2(miss_x, x[d]) for d in common])
    b = np.array([ry[d] - corr2(miss_y, y[d]) for d in common])
    return _pearson(a, b)


def packed_corrected_spearman(series: dict[int, dict], edges: list[tuple[int, int]], bits: int) -> dict:
    """The SQL's packed form: one sort per series; each day carries one word with a field per metric
    (`bits` wide) set to 1 where that metric is missing on that day; the running sum of the words over
    the series in value order (peers included) and the peer group's sum give, field by field,
    2 * corr = 2 * cumulative - peers. Returns rho per edge."""
    days = sorted(set().union(*[set(s) for s in series.values()]))
    mask = (1 << bits) - 1
    doubled, corr = {}, {}
    for m, s in series.items():
        word = {d: sum(1 << (bits * k) for k, sk in series.items() if d not in sk) for d in s}
        order = sorted(s, key=lambda d: s[d])
        values = np.array([s[d] for d in order])
        r2 = _doubled_ranks(values)
        for i, d in enumerate(order):
            le = [e for e in order if s[e] <= s[d]]
            eq = [e for e in order if s[e] == s[d]]
            cum, peers = sum(word[e] for e in le), sum(word[e] for e in eq)
            doubled[(m, d)] = int(r2[i])
            corr[(m, d)] = 2 * cum - peers               # no field borrows: cum >= peers field-wise
    out = {}
    for a_m, b_m in edges:
        common = [d for d in days if d in series[a_m] and d in series[b_m]]
        ra = [doubled[(a_m, d)] - ((corr[(a_m, d)] >> (bits * b_m)) & mask) for d in common]
        rb = [doubled[(b_m, d)] - ((corr[(b_m, d)] >> (bits * a_m)) & mask) for d in common]
        out[(a_m, b_m)] = _pearson(np.array(ra), np.array(rb)) if len(common) >= 2 else None
    return out


def _scipy(x: dict, y: dict) -> float | None:
    common = sorted(set(x) & set(y))
    a = np.array([x[d] for d in common])
    b = np.array([y[d] for d in common])
    if len(common) < 2 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return None
    return float(spearmanr(a, b).statistic)


# a series: day -> value, days 0..39 with gaps, few distinct values (many ties)
series_st = st.dictionaries(st.integers(0, 39), st.integers(0, 6), min_size=0, max_size=40)


@given(series_st, series_st)
@settings(max_examples=300, deadline=None)
def test_corrected_ranks_equal_scipy_on_common_days(x, y):
    expected = _scipy(x, y)
    got = corrected_spearman(x, y) if len(set(x) & set(y)) >= 2 else None
    assert (expected is None) == (got is None)
    if expected is not None:
        assert abs(got - expected) < 1e-12


@given(st.lists(series_st, min_size=2, max_size=4))
@settings(max_examples=150, deadline=None)
def test_packed_fields_equal_scipy_for_every_edge(metrics):
    series = dict(enumerate(metrics))
    edges = [(a, b) for a in series for b in series if a < b]
    # a field holds 2 * (count of missing days), at most 2 * 40: 7 bits
    got = packed_corrected_spearman(series, edges, bits=7)
    for a, b in edges:
        expected = _scipy(series[a], series[b])
        assert (expected is None) == (got[(a, b)] is None), (a, b)
        if expected is not None:
            assert abs(got[(a, b)] - expected) < 1e-12, (a, b)


def test_hand_worked_example_with_a_gap_on_each_side():
    # x on days 0..5, y on days 1..6: common days 1..5
    x = {0: 3.0, 1: 1.0, 2: 2.0, 3: 2.0, 4: 5.0, 5: 4.0}
    y = {1: 2.0, 2: 1.0, 3: 3.0, 4: 3.0, 5: 5.0, 6: 0.0}
    # x over D_x: day0=3 has rank 4; x on day 4 (5.0) ranks 6 over D_x, 5 among the common days:
    # one missing-y day (day 0, x=3) below it
    assert abs(corrected_spearman(x, y) - _scipy(x, y)) < 1e-15
