"""Krippendorff's alpha, the inter-rater reliability of the human evaluation (DESIGN.md §10 "Human
evaluation"; Krippendorff, "Computing Krippendorff's Alpha-Reliability", 2011).

The data are a coders x units matrix; a missing value (``None`` or NaN) means that coder did not code
that unit. Only *pairable* values count: values of units coded by at least two coders. From them the
coincidence matrix is

    o[c, k] = sum over units u of (number of ordered pairs (c, k) of values of different coders in u) / (m_u - 1)

(``m_u`` = the number of values in unit u), with marginals ``n_c = sum_k o[c, k]`` and ``n = sum_c n_c``.
Then

    alpha = 1 - D_o / D_e = 1 - (n - 1) * sum_{c,k} o[c, k] delta2(c, k) / sum_{c,k} n_c n_k delta2(c, k)

with the squared difference ``delta2`` of the level of measurement:

* nominal: 0 if c = k else 1;
* ordinal: ``(sum_{g = c..k} n_g - (n_c + n_k) / 2) ** 2`` over the values sorted ascending;
* interval: ``(c - k) ** 2``.

This is a from-scratch implementation of those formulas (the ``krippendorff`` PyPI package is
GPL-3.0 and used only as an extra test oracle when installed).
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Iterable, Sequence

LEVELS = ("nominal", "ordinal", "interval")


def _missing(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def coincidences(data: Sequence[Sequence[float | None]]) -> dict[tuple[float, float], float]:
    """The coincidence matrix ``{(c, k): o_ck}`` of a coders x units matrix (DESIGN.md §10; see the
    module docstring). Units with fewer than two values contribute nothing."""
    if not data:
        return {}
    n_units = max(len(row) for row in data)
    o: dict[tuple[float, float], float] = defaultdict(float)
    for u in range(n_units):
        values = [float(row[u]) for row in data if u < len(row) and not _missing(row[u])]
        m = len(values)
        if m < 2:
            continue
        for i, c in enumerate(values):
            for j, k in enumerate(values):
                if i != j:
                    o[(c, k)] += 1.0 / (m - 1)
    return dict(o)


def _delta2(level: str, values: list[float], n_c: dict[float, float]):
    if level == "nominal":
        return lambda c, k: 0.0 if c == k else 1.0
    if level == "interval":
        return lambda c, k: (c - k) ** 2
    # ordinal: cumulative marginals over the sorted values
    index = {v: i for i, v in enumerate(values)}
    cum = [0.0]
    for v in values:
        cum.append(cum[-1] + n_c[v])

    def ordinal(c, k):
        lo, hi = sorted((index[c], index[k]))
        return (cum[hi + 1] - cum[lo] - (n_c[c] + n_c[k]) / 2.0) ** 2

    return ordinal


def alpha(data: Sequence[Sequence[float | None]], level: str = "ordinal") -> float:
    """Krippendorff's alpha of a coders x units matrix (missing = None or NaN) at ``level``
    (``nominal``, ``ordinal`` or ``interval``), DESIGN.md §10 "Human evaluation".

    Raises :class:`ValueError` for an unknown level, when no unit has two values (nothing is
    pairable), or when every pairable value is the same (expected disagreement 0: alpha undefined).
    """
    if level not in LEVELS:
        raise ValueError(f"unknown level of measurement {level!r}; choose {', '.join(LEVELS)}")
    o = coincidences(data)
    if not o:
        raise ValueError("no unit was coded by at least two coders: alpha is undefined")
    n_c: dict[float, float] = defaultdict(float)
    for (c, _k), w in o.items():
        n_c[c] += w
    values = sorted(n_c)
    n = sum(n_c.values())
    d2 = _delta2(level, values, n_c)
    observed = sum(w * d2(c, k) for (c, k), w in o.items())
    expected = sum(n_c[c] * n_c[k] * d2(c, k) for c in values for k in values)
    if expected == 0:
        raise ValueError("every pairable value is the same: no expected disagreement, alpha is undefined")
    return 1.0 - (n - 1.0) * observed / expected


def units_matrix(rows: Iterable[tuple[str, object, float]]) -> tuple[list[str], list[object], list[list[float | None]]]:
    """``(coders, units, matrix)`` from long rows ``(coder, unit, value)``: the coders x units matrix
    :func:`alpha` takes, coders and units sorted, None where a coder has no value for a unit."""
    rows = list(rows)
    coders = sorted({r[0] for r in rows})
    units = sorted({r[1] for r in rows}, key=repr)
    ci = {c: i for i, c in enumerate(coders)}
    ui = {u: j for j, u in enumerate(units)}
    matrix: list[list[float | None]] = [[None] * len(units) for _ in coders]
    for coder, unit, value in rows:
        matrix[ci[coder]][ui[unit]] = None if value is None else float(value)
    return coders, units, matrix
