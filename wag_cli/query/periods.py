"""Periods named in a question (QueryParse, DESIGN.md §8 "Periods").

A period is a closed range of calendar days ``[start, end]``: the reference day t^q is ``end`` and the
window k^q is ``end - start + 1`` days (``start`` None = every day on record up to ``end``, window
"all"). The rolling phrases of the labelled set ("this week", "yesterday", "past 14 days") are read by
``parse.parse_window``; this module resolves the absolute and calendar ones:

* ``between D1 and D2``, ``from D1 to D2`` (also "until", "through", "till") -> exactly [D1, D2];
* an ISO date ``2024-03-05``, ``March 5``, ``5 March``, ``March 5th, 2024`` -> that day;
* ``since Monday`` -> the last Monday <= as-of, to as-of; ``since D`` -> [D, as-of];
* ``on Sunday`` -> the last Sunday <= as-of (``last Sunday``: before as-of), one day;
  ``the week before last`` -> the 7 days ending 7 days before as-of;
* ``the week before D`` (``3 days prior to D``, ``the month leading up to D``) -> the 7 (3, 30) days
  ending the day before D; ``the week after D`` (``following``) -> D+1 .. D+7, cut at as-of;
* ``this month`` -> the 1st of as-of's month to as-of;
* ``in March``, ``March 2024``, ``during March`` -> that month, ending on its last day or as-of,
  whichever is earlier;
* ``3 days ago`` -> that day; ``2 weeks ago`` -> the week ending 14 days before as-of;
  ``a month ago`` -> the 30 days ending 30 days earlier.

A date without a year takes the as-of year, or the year before when that would lie after as-of.

Two periods side by side (Comparative Insight) come from :func:`comparison_periods`:
"this week vs last week" (the period and the equally long one just before it; "this month vs last
month" = the calendar months), "weekends vs weekdays" (the period's days split by day of week) and
"before/after D" (days before D vs days from D to as-of).

Errors a user can cause (a range that ends before it starts, an impossible date) raise ``ValueError``
with a one-line reason; the CLI turns it into a UsageError.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, Iterable

from ..settings import default_window_days
from .lexicon import ARTICLES, NUMBER_WORDS, tokens

MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
MONTHS["sept"] = 9
WEEKDAYS = {name.lower(): i for i, name in enumerate(calendar.day_name)}   # monday = 0
_MONTH = r"(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(\d{4})"
_WORDS = {**ARTICLES, **NUMBER_WORDS}   # data/lexicon.toml: one list of number words for every rule
_N = r"(\d+|" + "|".join(sorted(map(re.escape, _WORDS), key=len, reverse=True)) + r")"
_UNIT = {"day": 1, "night": 1, "week": 7, "fortnight": 14, "month": 30}

#: One date, in any of the accepted spellings (groups: iso y, m, d | month, day, year | day, month, year).
_DATE = (rf"(?:(\d{{4}})-(\d{{2}})-(\d{{2}})"
         rf"|{_MONTH} {_DAY}(?:,? {_YEAR})?"
         rf"|{_DAY} (?:of )?{_MONTH}(?:,? {_YEAR})?)")
_RANGE = re.compile(rf"\b(?:between|from) (?:the )?{_DATE} (?:and|to|until|till|through|thru|-) (?:the )?{_DATE}\b")
_ALL_ISO = (1, 2, 3, 4, 5, 6, 7)
_NAMES = re.compile(r"\b(" + "|".join(sorted([*MONTHS, *WEEKDAYS], key=len, reverse=True)) + r")\b")
WEEKEND = (6, 7)                     # ISO day of week: Saturday, Sunday
WEEKDAY = (1, 2, 3, 4, 5)


@dataclass(frozen=True)
class Period:
    """A closed range of days ``[start, end]`` (``start`` None = from the first day on record).

    ``label`` is the phrase the answer uses ("this week", "weekends"); ``iso_days`` restricts the
    range to ISO days of the week (1 = Monday .. 7 = Sunday), all days by default.
    """

    start: date | None
    end: date
    label: str = ""
    iso_days: tuple[int, ...] = _ALL_ISO

    def __post_init__(self) -> None:
        # labels are cut from the lowercased question: month and weekday names get their capital back
        object.__setattr__(self, "label", _NAMES.sub(lambda m: m[0].capitalize(), self.label))

    @property
    def window_days(self) -> int | None:
        """Calendar days in the range (``None`` = all history)."""
        return None if self.start is None else (self.end - self.start).days + 1

    def describe(self) -> str:
        """'2020-01-01 to 2020-01-15 (15 days)', 'all days up to 2020-01-15', '2020-01-15'."""
        days = "" if self.iso_days == _ALL_ISO else (
            " weekend days" if self.iso_days == WEEKEND else " weekdays" if self.iso_days == WEEKDAY else " selected days")
        if self.start is None:
            return f"all{days or ' days'} up to {self.end.isoformat()}"
        if self.start == self.end:
            return self.end.isoformat()
        n = self.window_days
        return f"{self.start.isoformat()} to {self.end.isoformat()} ({n} days{', ' + days.strip() + ' only' if days else ''})"

    def to_json(self) -> dict:
        """``{"label", "start" (ISO or None), "end", "days" (int or "all"), "iso_days"}``."""
        return {"label": self.label, "start": self.start.isoformat() if self.start else None,
                "end": self.end.isoformat(), "days": "all" if self.window_days is None else self.window_days,
                "iso_days": list(self.iso_days)}


def rolling(end: date, window_days: int | None, label: str = "") -> Period:
    """The ``window_days`` days ending on ``end`` (None = all days up to ``end``)."""
    start = None if window_days is None else end - timedelta(days=int(window_days) - 1)
    return Period(start, end, label)


def _year_for(month: int, day: int, as_of: date) -> int:
    try:
        candidate = date(as_of.year, month, day)
    except ValueError:
        return as_of.year
    return as_of.year if candidate <= as_of else as_of.year - 1


def _date_from(groups: tuple, as_of: date) -> date:
    """A date from the 9 groups of :data:`_DATE`; ``ValueError`` for an impossible one."""
    iy, im, idd, m1, d1, y1, d2, m2, y2 = groups
    try:
        if iy:
            return date(int(iy), int(im), int(idd))
        month, day, year = (MONTHS[m1], int(d1), y1) if m1 else (MONTHS[m2], int(d2), y2)
        return date(int(year) if year else _year_for(month, day, as_of), month, day)
    except ValueError:
        raise ValueError(f"{' '.join(g for g in groups if g)!r} is not a calendar date") from None


#: Period words a misspelling is corrected to (full month and weekday names, calendar units).
_PERIOD_WORDS = frozenset([
    *(calendar.month_name[i].lower() for i in range(1, 13)),
    *(d for d in WEEKDAYS), *(d + "s" for d in WEEKDAYS),
    "week", "weeks", "weekend", "weekends", "weekday", "weekdays", "month", "months", "year", "years",
    "yesterday", "today", "fortnight"])
#: Shorthands too short for a similarity match.
_SHORTHANDS = {"lst": "last", "wk": "week", "wks": "weeks", "wek": "week", "wkend": "weekend",
               "mnth": "month", "mth": "month", "mnths": "months", "yday": "yesterday", "yest": "yesterday",
               "tdy": "today", "febr": "february"}
#: Real words close to a period word that must stay as written.
_NOT_TYPOS = frozenset(["weekly", "monthly", "yearly", "mouth", "moths", "todays", "toddy", "mayday",
                        "sunday's", "mundane"])


def correct_period_words(question: str, keep: frozenset[str] | set[str] = frozenset()) -> tuple[str, list[tuple[str, str]]]:
    """The question with misspelled period words corrected ("febuary" -> "february", "yesturday",
    "lst wek"), and the corrections made ``[(as written, read as)]``.

    A word of 5 or more letters that is not a period word, not in ``keep`` (e.g. the catalog's metric
    words) and not a listed real word becomes the period word it is closest to when their similarity
    (:class:`difflib.SequenceMatcher` ratio) is at least 0.8; shorter words only through a fixed list of
    shorthands. Everything else is left as written.
    """
    import difflib

    corrections: list[tuple[str, str]] = []

    def fix(m: re.Match) -> str:
        word = m.group(0)
        low = word.lower()
        if low in _PERIOD_WORDS or low in keep or low in _NOT_TYPOS:
            return word
        if low in _SHORTHANDS:
            corrections.append((word, _SHORTHANDS[low]))
            return _SHORTHANDS[low]
        if len(low) < 5:
            return word
        close = difflib.get_close_matches(low, _PERIOD_WORDS, n=1, cutoff=0.8)
        if not close:
            return word
        corrections.append((word, close[0]))
        return close[0]

    fixed = re.sub(r"[A-Za-z]+", fix, question)
    return fixed, corrections


def find_dates(question: str, as_of: date) -> list[tuple[int, date, str]]:
    """Every date written in the question: ``[(position, date, text)]`` in order of appearance."""
    q = question.lower()
    return [(m.start(), _date_from(m.groups(), as_of), m.group(0)) for m in re.finditer(rf"\b{_DATE}\b", q)]


def _month_period(month: int, year: int, as_of: date, label: str) -> Period:
    last = date(year, month, calendar.monthrange(year, month)[1])
    return Period(date(year, month, 1), min(last, as_of) if date(year, month, 1) <= as_of else last, label)


def resolve_period(question: str, as_of: date) -> Period | None:
    """The explicit or calendar period of the question (module docstring), else None.

    ``ValueError`` for a range ending before it starts or an impossible date.
    """
    q = " ".join(question.lower().replace(",", ", ").split())
    q = re.sub(r" ,", ",", q)
    m = _RANGE.search(q)
    if m:
        g = m.groups()
        d1, d2 = _date_from(g[:9], as_of), _date_from(g[9:], as_of)
        if d2 < d1 and not any(g[i] for i in (0, 5, 8, 9, 14, 17)):   # no years written: D2 is next year
            d2 = date(d2.year + 1, d2.month, d2.day)
        if d2 < d1:
            raise ValueError(f"the period {m.group(0)!r} ends before it starts")
        return Period(d1, d2, m.group(0))
    m = re.search(r"\bsince (?:last )?(" + "|".join(WEEKDAYS) + r")\b", q)
    if m:
        back = (as_of.weekday() - WEEKDAYS[m[1]]) % 7
        return Period(as_of - timedelta(days=back), as_of, m.group(0))
    m = re.search(r"\b(?:on|for|last) (last )?(" + "|".join(WEEKDAYS) + r")\b", q)
    if m and not re.search(r"\b(since|every|each|on " + "|on ".join(f"{d}s" for d in WEEKDAYS) + r")\b", q):
        # "on Sunday", "last Sunday": that one day, the latest on or before as-of ("last": before it)
        back = (as_of.weekday() - WEEKDAYS[m[2]]) % 7
        if back == 0 and (m[1] or m[0].startswith("last")):
            back = 7
        d = as_of - timedelta(days=back)
        return Period(d, d, m.group(0))
    if re.search(r"\b(the )?week before last\b", q):
        return rolling(as_of - timedelta(days=7), 7, "the week before last")
    m = re.search(rf"\b(?:{_N} )?(day|night|week|fortnight|month)s? (before|prior to|leading up to|after|following) "
                  rf"(?:the )?{_DATE}", q)
    if m:
        # "the week before D": the 7 days ending the day before D; "the 3 days after D": D+1 .. D+3
        n = 1 if m[1] is None else int(m[1]) if m[1].isdigit() else _WORDS[m[1]]
        days = n * _UNIT[m[2]]
        d = _date_from(m.groups()[3:], as_of)
        if m[3] in ("after", "following"):
            if d >= as_of:
                raise ValueError(f"{m.group(0)!r} starts after the reference day {as_of.isoformat()}")
            return Period(d + timedelta(days=1), min(d + timedelta(days=days), as_of), m.group(0))
        return rolling(d - timedelta(days=1), days, m.group(0))
    m = re.search(rf"\bsince (?:the )?{_DATE}", q)
    if m:
        d = _date_from(m.groups(), as_of)
        if d > as_of:
            raise ValueError(f"{m.group(0)!r} starts after the reference day {as_of.isoformat()}")
        return Period(d, as_of, m.group(0))
    m = re.search(rf"\bsince {_MONTH}(?: {_YEAR})?\b(?! \d)", q)
    if m:
        month = MONTHS[m[1]]
        year = int(m[2]) if m[2] else _year_for(month, 1, as_of)
        return Period(date(year, month, 1), as_of, m.group(0))
    dates = find_dates(q, as_of)
    if dates and not re.search(r"\b(before|after)\b", q):
        _pos, d, text = dates[0]
        return Period(d, d, text)
    if re.search(r"\b(this|current) (calendar )?month\b", q):
        return Period(as_of.replace(day=1), as_of, "this month")
    m = re.search(rf"\b(?:(?:in|during|for|over|throughout) )?{_MONTH} {_YEAR}\b", q) or \
        re.search(rf"\b(?:in|during|for|over|throughout) {_MONTH}\b(?! (?:\d))", q)
    if m and not (m[1] == "may" and not m[0].startswith(("in", "during", "for", "over", "through")) and m.lastindex == 1):
        month = MONTHS[m[1]]
        year = int(m[2]) if m.lastindex and m.lastindex >= 2 and m[2] else _year_for(month, 1, as_of)
        return _month_period(month, year, as_of, m.group(0))
    m = re.search(rf"\b{_N} (day|night|week|month)s? ago\b", q)
    if m:
        n = int(m[1]) if m[1].isdigit() else _WORDS[m[1]]
        unit = _UNIT[m[2]]
        return rolling(as_of - timedelta(days=n * unit), unit, m.group(0))
    return None


PERIOD_EXPRESSIONS_FILE = "period_expressions.toml"


def _expression_patterns() -> tuple[re.Pattern, ...]:
    """The patterns of :data:`PERIOD_EXPRESSIONS_FILE`: "<introducer> [the|my|...] <noun>", and
    "[<introducer>] <the|my|this|last|...> <noun>" for the nouns that count only with a determiner."""
    import tomllib
    from importlib import resources

    data = tomllib.loads(resources.files("wag_cli").joinpath("data", PERIOD_EXPRESSIONS_FILE)
                         .read_text(encoding="utf-8"))
    det = r"(?:(?:the|my|our|that|this|last|past|previous) )?"
    only = set(data["determined_only"])
    nouns = "|".join(n for n in data["nouns"] if n not in only)
    intro = "|".join(data["introducers"])
    return (re.compile(rf"\b(?:{intro}) {det}(?:{nouns})\b"),
            re.compile(rf"\b(?:(?:{intro}) )?(?:the|my|our|that|this|last|past|previous) (?:{'|'.join(sorted(only))})\b"))


_EXPRESSIONS: tuple[re.Pattern, ...] = ()


def unrecognised_period(question: str) -> str | None:
    """The first time expression of the question that the period rules above do not resolve
    ("over the holidays", "during my vacation", "last semester"), else None (DESIGN.md §8 "QueryParse
    with a model", §11). The phrases are data (:data:`PERIOD_EXPRESSIONS_FILE`); the caller decides
    what to do with one: name it as not understood, or ask a model for its dates.
    """
    global _EXPRESSIONS
    if not _EXPRESSIONS:
        _EXPRESSIONS = _expression_patterns()
    q = " ".join(re.sub(r"[^a-z0-9']+", " ", question.lower().replace("\u2019", "'")).split())
    found = [m for pat in _EXPRESSIONS for m in [pat.search(q)] if m]
    return min(found, key=lambda m: m.start()).group(0) if found else None


def explicit_period(question: str, as_of: date) -> tuple[int | None, date, str] | None:
    """``(window_days, reference_day, phrase)`` of :func:`resolve_period`, else None (kept for callers)."""
    p = resolve_period(question, as_of)
    return None if p is None else (p.window_days, p.end, p.label)


_PREV = (r"(?:(?:last|previous|prior|preceding) (?:week|month|fortnight|\d+ days)|the (?:week|month) before"
         r"|(?:the )?(?:week|month) before)")
#: "<versus word> [the] <previous period>" or "this week ... last week": two periods side by side.
_PREVIOUS = re.compile(rf"\b(?:vs\.?|versus|compared?|comparing|compared (?:to|with)|compare (?:to|with)|than"
                       rf"|against|relative to|and) (?:to |with )?(?:the |that of |in the |during the )?({_PREV})\b")
_THIS_VS_LAST = re.compile(rf"\b(?:this|current) (week|month)\b.*\b((?:last|previous|prior) \1)\b")


def comparison_periods(question: str, first: Period, as_of: date) -> tuple[str, Period, Period] | None:
    """``(kind, period_a, period_b)`` when the question sets two periods side by side, else None.

    ``first`` is the question's own period. Kinds:

    * ``weekday_split`` — "weekends vs weekdays": ``first``'s days split by ISO day of week (a
      question naming no period compares over all history; the caller passes that period);
    * ``before_after`` — "before/after D": days before D (all history) vs D .. ``first.end``;
    * ``previous`` — "this week vs last week", "compared with the previous month": ``first`` vs the
      equally long period just before it ("this month" vs "last month" = the previous calendar month);
    * ``months`` — two named calendar months ("March compared with February"), each the latest one
      on or before ``as_of``.
    """
    q = " ".join(question.lower().split())
    weekend = re.search(r"\bweekends?\b", q)
    weekday = re.search(r"\b(weekdays?|work ?days?|week days?|during the week)\b", q)
    if weekend and weekday:
        a, b = (WEEKEND, "weekends"), (WEEKDAY, "weekdays")
        if weekday.start() < weekend.start():
            a, b = b, a
        return ("weekday_split", Period(first.start, first.end, a[1], a[0]),
                Period(first.start, first.end, b[1], b[0]))
    changed_after = re.search(r"\b(after|since)\b", q) and re.search(
        r"\b(chang|differ|compar|improv|wors|better|drop|fell|fall|increas|decreas|go(ne)? (up|down)|went (up|down))", q)
    if (re.search(r"\bbefore\b", q) and re.search(r"\bafter\b", q)) or changed_after:
        dates = find_dates(q, as_of)
        if dates:
            d = dates[0][1]
            if d > first.end:
                raise ValueError(f"{dates[0][2]!r} is after the reference day {first.end.isoformat()}")
            return ("before_after", Period(None, d - timedelta(days=1), f"before {d.isoformat()}"),
                    Period(d, first.end, f"from {d.isoformat()}"))
    months = [(mm.start(), MONTHS[mm[1]], mm[0]) for mm in re.finditer(rf"\b{_MONTH}(?! \d)\b", q)
              if not (mm[1] == "may" and not re.search(r"\b(in|during|for|over|of|and|than|vs|with|to) may\b", q))]
    distinct = list(dict.fromkeys(m_ for _p, m_, _t in months))
    if len(distinct) == 2 and re.search(r"\b(compared?|comparing|vs|versus|than|against|and|to)\b", q):
        # "March compared with February", "higher in January than in December": two calendar months,
        # each the latest one on or before the reference day (the one named first is period a)
        a_month, b_month = distinct
        pa = _month_period(a_month, _year_for(a_month, 1, as_of), as_of, calendar.month_name[a_month])
        pb = _month_period(b_month, _year_for(b_month, 1, as_of), as_of, calendar.month_name[b_month])
        return ("months", pa, pb)
    m = _PREVIOUS.search(q) or _THIS_VS_LAST.search(q)
    if m:
        phrase = m.group(m.lastindex)
        if first.label == "this month" and "month" in phrase and first.start is not None:
            prev_end = first.start - timedelta(days=1)
            return ("previous", first, Period(prev_end.replace(day=1), prev_end, "last month"))
        if first.start is None:
            return None
        n = first.window_days
        prev_end = first.start - timedelta(days=1)
        label = phrase if first.label != phrase else f"the {n} days before"
        current = first if first.label != phrase else Period(first.start, first.end, f"the {n} days ending {first.end.isoformat()}")
        return ("previous", current, Period(prev_end - timedelta(days=n - 1), prev_end, label))
    return None



# --------------------------------------------------------------------------- window

_NUMBER_WORDS = NUMBER_WORDS
_UNIT_DAYS = {"day": 1, "night": 1, "week": 7, "month": 30, "year": 365}
_NUM = r"(\d+|" + "|".join(sorted(map(re.escape, _NUMBER_WORDS), key=len, reverse=True)) + r")"

# (pattern, fn(match) -> (window_days, ref_offset)); all on normalised text.
_PERIODS: tuple[tuple[str, Any], ...] = (
    (r"\bday before yesterday\b", lambda m: (1, -2)),
    (r"\byesterday\b", lambda m: (1, -1)),
    (r"\b(today|tonight|this morning|this afternoon|this evening|last night)\b", lambda m: (1, 0)),
    (r"\b(past|last|previous|prior) 24 hours\b", lambda m: (1, 0)),
    (r"\b" + _NUM + r" (day|night|week|month|year)s?\b",
     lambda m: (_num(m.group(1)) * _UNIT_DAYS[m.group(2)], 0)),
    (r"\bfortnight\b", lambda m: (14, 0)),
    (r"\b(this|past|last|previous|prior|current|recent) quarter\b", lambda m: (90, 0)),
    (r"\b(this|past|last|previous|prior|current|the) (week|month|year)\b",
     lambda m: (_UNIT_DAYS[m.group(2)], 0)),
)

#: Bare period words, used only when no explicit period above is named ("each week" -> 7).
_BARE_PERIODS: tuple[tuple[str, Any], ...] = (
    (r"\b(weekly|week)\b", lambda m: (7, 0)),
    (r"\b(monthly|month)\b", lambda m: (30, 0)),
)

#: History words: the whole record (window "all") when no explicit period is named.
_HISTORY = re.compile(
    r"\b(overall|ever|all time|since i (first )?(started|start|began|begun|joined|got)|since the (start|beginning)"
    r"|from the (start|beginning)|in general|generally|historically|whole history|entire history"
    r"|all (of )?my (data|history|records)|whole (record|period)|entire (record|period)|long term"
    r"|to date|since day one|lifetime|usually|typically)\b"
)


def _num(text: str) -> int:
    return int(text) if text.isdigit() else _NUMBER_WORDS[text]


def parse_window(question: str, mask: Iterable[tuple[int, int]] = ()) -> tuple[int | None, int, str]:
    """``(window_days or None for all, ref_offset, phrase)`` from the question's period words.

    The earliest explicit period wins ("this week vs last week" -> 7); with none, a history word
    ("overall", "ever", "since I started", "in general") -> ``None``; else the default 7 days.
    ``mask``: token spans (e.g. matched metric phrases such as "overall sleep score") ignored.
    """
    toks = tokens(question)
    masked = set()
    for i, j in mask:
        masked.update(range(i, j))
    text = " ".join("_" if k in masked else t for k, t in enumerate(toks))
    for tier in (_PERIODS, _BARE_PERIODS):
        best: tuple[int, int, int, str] | None = None
        for pat, fn in tier:
            for m in re.finditer(pat, text):
                w, off = fn(m)
                if w > 0 and (best is None or m.start() < best[0]):
                    best = (m.start(), w, off, m.group(0))
                break
        if best is not None:
            return best[1], best[2], best[3]
    h = _HISTORY.search(text)
    if h:
        return None, 0, h.group(0)
    return default_window_days(), 0, ""     # the dbt var default_window_days (DESIGN.md §8)
