"""Explicit dates and 'N units ago' in a question (QueryParse, DESIGN.md §8).

The relative phrases of the labelled set ("this week", "yesterday", "past 14 days") are handled by
``parse.parse_window``; this module adds the absolute ones a user also types:

* an ISO date ``2024-03-05``, ``March 5``, ``5 March``, ``March 5th, 2024`` -> that day, window 1
* a month ``in February``, ``February 2024``, ``during March`` -> the month, window = its length,
  reference day = its last day
* ``3 days ago`` -> that day (window 1); ``2 weeks ago`` -> the week ending 14 days before the
  reference day (window 7); ``a month ago`` -> the 30 days ending 30 days earlier.

A date without a year takes the as-of year, or the year before when that would lie after as-of.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, timedelta

MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
MONTHS["sept"] = 9
_MONTH = r"(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(\d{4})"
_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
          "seven": 7, "eight": 8, "nine": 9, "ten": 10, "a couple of": 2, "couple of": 2}
_N = r"(\d+|" + "|".join(sorted(map(re.escape, _WORDS), key=len, reverse=True)) + r")"
_UNIT = {"day": 1, "night": 1, "week": 7, "month": 30}


def _year_for(month: int, day: int, as_of: date) -> int:
    try:
        candidate = date(as_of.year, month, day)
    except ValueError:
        return as_of.year
    return as_of.year if candidate <= as_of else as_of.year - 1


def explicit_period(question: str, as_of: date) -> tuple[int, date, str] | None:
    """``(window_days, reference_day, phrase)`` for an explicit date in the question, else None."""
    q = question.lower()
    m = re.search(r"\b(\d{4})-(\d{2})-(\d{2})\b", q)
    if m:
        try:
            return 1, date(int(m[1]), int(m[2]), int(m[3])), m[0]
        except ValueError:
            return None
    for pat, order in ((rf"\b{_MONTH} {_DAY}(?:,? {_YEAR})?\b", "md"), (rf"\b{_DAY} (?:of )?{_MONTH}(?:,? {_YEAR})?\b", "dm")):
        m = re.search(pat, q)
        if m:
            month_s, day_s = (m[1], m[2]) if order == "md" else (m[2], m[1])
            month, day = MONTHS[month_s], int(day_s)
            year = int(m[3]) if m[3] else _year_for(month, day, as_of)
            try:
                return 1, date(year, month, day), m[0]
            except ValueError:
                return None
    m = re.search(rf"\b(?:(?:in|during|for|over|throughout) )?{_MONTH} {_YEAR}\b", q) or \
        re.search(rf"\b(?:in|during|for|over|throughout) {_MONTH}\b(?! (?:\d))", q)
    if m and not (m[1] == "may" and not m[0].startswith(("in", "during", "for", "over", "through")) and m.lastindex == 1):
        month = MONTHS[m[1]]
        year = int(m[2]) if m.lastindex and m.lastindex >= 2 and m[2] else _year_for(month, 1, as_of)
        last = date(year, month, calendar.monthrange(year, month)[1])
        return calendar.monthrange(year, month)[1], last, m[0]
    m = re.search(rf"\b{_N} (day|night|week|month)s? ago\b", q)
    if m:
        n = int(m[1]) if m[1].isdigit() else _WORDS[m[1]]
        unit = _UNIT[m[2]]
        return unit, as_of - timedelta(days=n * unit), m[0]
    return None
