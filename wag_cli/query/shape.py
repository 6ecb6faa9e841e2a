"""The shape of a question (DESIGN.md §8, §10): its category (cue phrases with a fixed precedence,
cues in ``data/category_cues.toml``), openness, intent, period and display unit."""

from __future__ import annotations

import re
from datetime import date, timedelta
from functools import lru_cache
from typing import Iterable


from ..categories import CATEGORY_OPENNESS
from .periods import Period, comparison_periods, resolve_period, rolling
from .lexicon import normalise, tokens
from ..settings import default_window_days


# --------------------------------------------------------------------------- categories (§10)


DEFAULT_CATEGORY = "Data Retrieval"
#: What an answer must contain (wag_cli.answer's analysis): a look-up, the pair's correlation, what
#: goes with X most, a trend, two periods side by side, or the most abnormal metrics overall.
INTENTS = ("lookup", "relationship", "influences", "trend", "comparison", "overview")


def category_openness(category: str) -> float:
    """Midpoint of the category's openness range, rounded to 2 decimals (KeyError if unknown)."""
    lo, hi = CATEGORY_OPENNESS[category]
    return round((lo + hi) / 2, 2)


# --------------------------------------------------------------------------- category

#: Precedence order (first category with a matching cue wins; no cue -> Data Retrieval):
#:   1 Metric Relationships (correlate, relationship, relate, link, affect, impact, influence)
#:   2 Anomaly Detection    (unusual, abnormal, anomal-, spike, outlier, sudden)
#:   3 Contextual Queries   (on days when/with, after I/a/my..., when I..., on weekends, during...)
#:   4 Actionable Advice    (how can/should I, should I, tips, advice, ways to, improve/reduce my)
#:   5 Exploratory Analysis (why, do you think, what is going on)
#:   6 Comparative Insight  (compare, vs, than last/usual, improved, guidelines)
#:   7 Trend Analysis       (trend, over time, pattern, go up/down, increase, change, vary)
#:   8 Exploratory Analysis (insights, how is/was my..., how did I sleep, tell me about, stands out)
#:   9 General Knowledge    (what does ... mean, normal/optimal range, "is my X okay", and any
#:                           "what is/are" question that never mentions the asker)
#:  10 Data Retrieval       (how many/much/long, what was my, average, total, did I ...)
#: Rationale: cues naming a structure (two metrics related, an outlier, a condition) are more
#: specific than the opening words; open "why" questions outrank comparisons/trends they mention;
#: plain look-ups are the default. Words inside matched metric phrases are hidden from the cues.
#: The cues themselves are data: ``wag_cli/data/category_cues.toml`` (a new phrasing is a data change).
CATEGORY_CUES_FILE = "category_cues.toml"


@lru_cache(maxsize=1)
def _cue_file() -> dict:
    import tomllib
    from importlib import resources

    return tomllib.loads(resources.files("wag_cli").joinpath("data", CATEGORY_CUES_FILE).read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def category_rules() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``((category, (regex, ...)), ...)`` in precedence order, from :data:`CATEGORY_CUES_FILE`.

    ``ValueError`` if the file names a category outside :data:`CATEGORY_OPENNESS`.
    """
    data = _cue_file()
    rules = tuple((r["category"], tuple(r["cues"])) for r in data["rule"])
    unknown = {c for c, _ in rules} - set(CATEGORY_OPENNESS)
    if unknown:
        raise ValueError(f"{CATEGORY_CUES_FILE}: unknown categories {sorted(unknown)}")
    return rules


_PERSONAL = re.compile(r"\b(my|i|me|mine|myself)\b")


#: Words of a matched metric phrase that stay visible to the classifier ("how long i slept").
_KEEP_IN_MASK = frozenset("how much many long often far well did do i what when my".split())


def classify(question: str, mask: Iterable[tuple[int, int]] = ()) -> tuple[str, str]:
    """``(category, cue)`` by :func:`category_rules` precedence on the normalised question.

    ``mask``: token spans of matched metric phrases; their words are hidden from the cues (so
    "heart rate variability" or "breathing pattern" is not a trend cue), except question words
    such as "how long" in "how long i slept". A "what is/are ..." question that never mentions the
    asker ("my", "I", "me") is General Knowledge unless a higher rule fired.
    No cue -> ``(DEFAULT_CATEGORY, "")``.
    """
    toks = tokens(question)
    hidden = {k for i, j in mask for k in range(i, j) if toks[k] not in _KEEP_IN_MASK}
    text = " ".join("_" if k in hidden else t for k, t in enumerate(toks))
    for category, patterns in category_rules():
        if category == "General Knowledge":
            m = re.search(r"\bwhat (is|are)\b", text)
            if m and not _PERSONAL.search(text):
                return category, m.group(0)
        for pat in patterns:
            m = re.search(pat, text)
            if m:
                return category, m.group(0)
    return DEFAULT_CATEGORY, ""


def question_shape(question: str, as_of: date, *, metrics: list[str], category: str, window: int | None,
                   offset: int, window_phrase: str = "", model_window: bool = False) -> dict:
    """The period, comparison, intent and display unit of a question (DESIGN.md §8 "Periods").

    ``window``/``offset``/``window_phrase``: the rolling period read so far (``parse_window`` or a
    model reply). An explicit or calendar period (:func:`wag_cli.query.periods.resolve_period`) replaces it;
    a weekend/weekday split naming no period covers all history; "before/after D" uses D .. as-of.
    A comparison makes the category Comparative Insight unless it is a relationship or an anomaly
    question (what is asked, not its wording). Returns ``{"period", "comparison", "category",
    "intent", "display_unit"}``; ``ValueError`` for an impossible period.
    """
    explicit = resolve_period(question, as_of)
    if explicit is not None:
        period = explicit
    else:
        period = rolling(as_of + timedelta(days=offset), window, window_phrase)
    text = normalise(question)
    cues = _shape_cues()
    overview = not metrics and _matches_any(cues["overview"], text)
    if overview and explicit is None and window is None and window_phrase in cues["overview_not_history"]:
        period = rolling(as_of, default_window_days())           # "how am I doing overall": across metrics, not all time
    comparison = comparison_periods(question, period, as_of)
    if comparison is not None and comparison[0] == "weekday_split" and explicit is None and not window_phrase \
            and not model_window:
        period = Period(None, as_of, "all days")
        comparison = comparison_periods(question, period, as_of)
    if comparison is not None:
        if comparison[0] == "before_after":
            period = comparison[2]
        elif comparison[0] == "previous":
            period = comparison[1]
        if category not in ("Metric Relationships", "Anomaly Detection"):
            category = "Comparative Insight"
    if overview:
        intent, category = "overview", "Exploratory Analysis"
    elif comparison is not None:
        intent = "comparison"
    elif category == "Trend Analysis":
        intent = "trend"
    elif len(metrics) >= 2 and category in ("Metric Relationships", "Contextual Queries"):
        intent = "relationship"
    elif len(metrics) == 1 and category == "Metric Relationships":
        intent = "influences"
    else:
        intent = "lookup"
    unit = None
    if _matches_any(cues["hours"], text):
        unit = "hours"
    elif _matches_any(cues["minutes"], text):
        unit = "minutes"
    return {"period": period, "comparison": comparison, "category": category, "intent": intent,
            "display_unit": unit}


def _shape_cues() -> dict:
    """The ``[shape]`` table of ``data/category_cues.toml``: overview, overview_not_history, hours, minutes."""
    return _cue_file()["shape"]


def _matches_any(patterns: Iterable[str], text: str) -> bool:
    return any(re.search(p, text) for p in patterns)
