"""Krippendorff's alpha (DESIGN.md §10 "Human evaluation") against the published worked example and
two small cases computed by hand from the coincidence-matrix formulas."""

from __future__ import annotations

import math

import pytest

from wag_cli.eval.krippendorff import alpha, coincidences, units_matrix

NAN = float("nan")
# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 observers x 12 units,
# values 1-5, blanks where an observer did not code a unit
PUBLISHED = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]


@pytest.mark.parametrize("level, published", [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)])
def test_published_example(level, published):
    assert round(alpha(PUBLISHED, level), 3) == published


def test_published_example_coincidences():
    # counted by hand from the matrix (pairable values only; unit 12 has one value): value 1 appears
    # 3 + 1 + 3 + 2 times (units 1, 6, 8, 11), 2: 3 + 4 + 1 + 1 + 4, 3: 1 + 4 + 4 + 1, 4: 1 + 4, 5: 3
    o = coincidences(PUBLISHED)
    marg = {}
    for (c, _), w in o.items():
        marg[c] = marg.get(c, 0) + w
    assert marg == pytest.approx({1.0: 9, 2.0: 13, 3.0: 10, 4.0: 5, 5.0: 3})
    # o_11: unit 1 (three 1s: 6 ordered pairs / 2) + unit 8 (three 1s of 4 values: 6 / 3) + unit 11 (2 / 1)
    assert o[(1.0, 1.0)] == pytest.approx(3 + 2 + 2)
    assert o[(5.0, 5.0)] == pytest.approx(3)      # unit 10: three 5s, 6 pairs / (3 - 1)


def test_hand_case_two_coders():
    # coders (1, 2, 3) and (1, 2, 4); units 1, 2 agree, unit 3 pairs (3, 4) and (4, 3) once each.
    # n_1 = 2, n_2 = 2, n_3 = 1, n_4 = 1, n = 6.
    data = [[1, 2, 3], [1, 2, 4]]
    # nominal: observed sum 2, expected sum n^2 - sum n_c^2 = 36 - 10 = 26 -> 1 - 5 * 2 / 26
    assert alpha(data, "nominal") == pytest.approx(1 - 10 / 26)
    # interval: observed 2 * 1; expected 2 * (2*2*1 + 2*1*4 + 2*1*9 + 2*1*1 + 2*1*4 + 1*1*1) = 82
    assert alpha(data, "interval") == pytest.approx(1 - 10 / 82)
    # ordinal: delta(3,4) = (1 + 1) - 1 = 1; delta(1,2) = 4 - 2 = 2, delta(1,3) = 5 - 1.5, delta(1,4) = 6 - 1.5,
    # delta(2,3) = 3 - 1.5, delta(2,4) = 4 - 1.5 -> expected 2 * (4*4 + 2*12.25 + 2*20.25 + 2*2.25 + 2*6.25 + 1) = 198
    assert alpha(data, "ordinal") == pytest.approx(1 - 10 / 198)


def test_hand_case_three_raters_with_missing_ranks():
    # units (e.g. (query, condition) pairs) x 3 raters, one blank each for raters 2 and 3
    data = [[1, 2, 3, 1], [2, 1, 3, None], [None, 2, 3, 2]]
    # o_12 = o_21 = 1 (unit 1) + 1 (unit 4) + 2 * 1/2 (unit 2) = 3; o_22 = 2 * 1/2 = 1; o_33 = 6 * 1/2 = 3
    o = coincidences(data)
    assert o == pytest.approx({(1.0, 2.0): 3, (2.0, 1.0): 3, (2.0, 2.0): 1, (3.0, 3.0): 3})
    # n_1 = 3, n_2 = 4, n_3 = 3, n = 10; observed disagreement sum o_12 + o_21 = 6
    assert alpha(data, "nominal") == pytest.approx(1 - 9 * 6 / (100 - 9 - 16 - 9))
    # interval: expected 2 * (3*4*1 + 3*3*4 + 4*3*1) = 120
    assert alpha(data, "interval") == pytest.approx(1 - 9 * 6 / 120)
    # ordinal: delta(1,2) = 7 - 3.5 = 3.5, delta(1,3) = 10 - 3 = 7, delta(2,3) = 7 - 3.5 = 3.5
    # observed 6 * 12.25 = 73.5; expected 2 * (12 * 12.25 + 9 * 49 + 12 * 12.25) = 1470
    assert alpha(data, "ordinal") == pytest.approx(1 - 9 * 73.5 / 1470)


def test_nan_is_missing_and_units_matrix_builds_the_matrix():
    long = [("r1", "u1", 1), ("r1", "u2", 2), ("r2", "u1", 1), ("r2", "u2", 3), ("r3", "u2", 2)]
    coders, units, m = units_matrix(long)
    assert coders == ["r1", "r2", "r3"] and units == ["u1", "u2"]
    assert m == [[1.0, 2.0], [1.0, 3.0], [None, 2.0]]
    with_nan = [[1.0, 2.0], [1.0, 3.0], [NAN, 2.0]]
    assert alpha(m, "ordinal") == alpha(with_nan, "ordinal")


def test_undefined_cases_raise():
    with pytest.raises(ValueError, match="at least two coders"):
        alpha([[1, None], [None, 2]])
    with pytest.raises(ValueError, match="undefined"):
        alpha([[1, 1], [1, 1]])
    with pytest.raises(ValueError, match="level"):
        alpha([[1, 2], [1, 2]], "ratio")
    assert alpha([[1, 2, 3], [1, 2, 3]], "nominal") == 1.0


def test_equals_the_gpl_package_when_installed():
    """Extra oracle only (GPL-3.0, never a runtime dependency): skipped when not installed."""
    kd = pytest.importorskip("krippendorff")
    import random

    rng = random.Random(3)
    for _ in range(20):
        data = [[rng.choice([1, 2, 3, 4, None]) for _ in range(15)] for _ in range(3)]
        for level in ("nominal", "ordinal", "interval"):
            try:
                ours = alpha(data, level)
            except ValueError:
                continue
            ref = kd.alpha([[NAN if v is None else v for v in row] for row in data], level_of_measurement=level,
                           value_domain=[1, 2, 3, 4])
            assert math.isclose(ours, ref, rel_tol=1e-9, abs_tol=1e-12), (data, level)
