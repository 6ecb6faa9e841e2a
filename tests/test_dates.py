"""Explicit dates in questions (QueryParse, DESIGN.md §8): expected periods worked out by hand."""

from __future__ import annotations

from datetime import date

import pytest

from wag_cli.query.periods import explicit_period
from wag_cli.query.offline import parse_offline

AS_OF = date(2024, 4, 29)


@pytest.mark.parametrize("question, window, ref", [
    ("How did I sleep on March 5?", 1, date(2024, 3, 5)),
    ("What was my resting heart rate on 5 March 2020?", 1, date(2020, 3, 5)),
    ("Steps on 2020-01-10?", 1, date(2020, 1, 10)),
    ("Was I stressed in February 2024?", 29, date(2024, 2, 29)),          # leap year
    ("How were my steps in May?", 31, date(2023, 5, 31)),                 # May 2024 is after as-of
    ("How was my deep sleep two weeks ago?", 7, date(2024, 4, 15)),
    ("How many steps did I take 3 days ago?", 1, date(2024, 4, 26)),
])
def test_explicit_periods(question, window, ref):
    w, day, _ = explicit_period(question, AS_OF)
    assert (w, day) == (window, ref)
    parsed = parse_offline(question, AS_OF)
    assert parsed.window_days == window and parsed.reference_day == ref


@pytest.mark.parametrize("question", ["May I see my steps this week?", "How did I sleep this week?",
                                      "Average deep sleep minutes over the past 14 days?"])
def test_no_explicit_period(question):
    assert explicit_period(question, AS_OF) is None
