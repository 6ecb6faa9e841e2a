"""The deterministic QueryParse (DESIGN.md §8): no network, same result type as the model path."""

from __future__ import annotations

import re
from datetime import date


from ..catalog import Metric, load_catalog
from ..categories import CATEGORY_OPENNESS
from .periods import Period, correct_period_words, unrecognised_period
from .parsed import ParsedQuery
from .shape import category_openness, classify, question_shape
from .metrics import match_metrics
from .periods import parse_window


# --------------------------------------------------------------------------- offline parse


def _check_question(question: str) -> str:
    if question is None or not str(question).strip():
        raise ValueError("empty question")
    return str(question).strip()


def offline_reading(question: str, catalog: dict[str, Metric]) -> dict:
    """The offline matcher's raw reading of a question, before the period is resolved:
    ``{"text" (period words corrected), "corrections", "hits" (:func:`match_metrics`), "window",
    "offset", "window_phrase" (:func:`parse_window`), "category", "cue" (:func:`classify`; cue ""
    = no cue, the default category), "unrecognised" (:func:`wag_cli.query.periods.unrecognised_period`)}``."""
    # misspelled period words ("febuary", "lst wek") read as the word meant; metric words are kept
    text, corrections = correct_period_words(question, keep=_catalog_words(catalog))
    hits = match_metrics(text, catalog)
    window, offset, window_phrase = parse_window(text, mask=[h["span"] for h in hits])
    category, cue = classify(text, mask=[h["span"] for h in hits])
    return {"text": text, "corrections": corrections, "hits": hits, "window": window, "offset": offset,
            "window_phrase": window_phrase, "category": category, "cue": cue,
            "unrecognised": unrecognised_period(text)}


def not_understood_note(phrase: str, period: Period) -> str:
    """DESIGN.md §11: "'over the holidays' was not understood; this answer covers 2020-01-14 to ..."."""
    return f"'{phrase}' was not understood; this answer covers {period.label + ', ' if period.label else ''}{period.describe()}"


def parse_offline(question: str, as_of: date, catalog: dict[str, Metric] | None = None) -> ParsedQuery:
    """Deterministic QueryParse (no network). See the module docstring; ``ValueError`` if empty or
    for an impossible period ("between March 9 and March 2"). A time expression the period rules do
    not resolve ("over the holidays") is named in ``period_notes`` (DESIGN.md §11)."""
    question = _check_question(question)
    catalog = catalog if catalog is not None else load_catalog()
    r = offline_reading(question, catalog)
    metrics = [h["metric_id"] for h in r["hits"]]
    shape = question_shape(r["text"], as_of, metrics=metrics, category=r["category"], window=r["window"],
                           offset=r["offset"], window_phrase=r["window_phrase"])
    period, category = shape["period"], shape["category"]
    hi = CATEGORY_OPENNESS[category][1]
    matches = [{k: v for k, v in h.items() if k != "span"} for h in r["hits"]]
    return ParsedQuery(
        question=question,
        metrics=metrics,
        window_days=period.window_days,
        reference_day=period.end,
        ref_offset=(period.end - as_of).days,
        openness=hi if shape["intent"] == "overview" else category_openness(category),
        category=category,
        matches=matches,
        source="offline",
        period=period,
        comparison=shape["comparison"],
        intent=shape["intent"],
        display_unit=shape["display_unit"],
        corrections=r["corrections"],
        period_notes=[not_understood_note(r["unrecognised"], period)] if r["unrecognised"] else [],
    )


def _catalog_words(catalog: dict[str, Metric]) -> frozenset[str]:
    """The lowercase words of the catalog's metric names and aliases (never corrected as typos)."""
    return frozenset(w for m in catalog.values() for t in (m.name, *m.aliases) for w in re.findall(r"[a-z]+", t.lower()))
