"""The result of QueryParse (DESIGN.md §8): :class:`ParsedQuery`."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date


from .periods import Period, rolling


# --------------------------------------------------------------------------- result type


@dataclass
class ParsedQuery:
    """The output of QueryParse.

    ``metrics``: catalog ids in order of appearance; ``window_days``: days, ``None`` = all history;
    ``reference_day`` = as-of day + ``ref_offset``; ``matches``: why each metric was picked
    (``{"phrase", "metric_id", "score", "how"}``; score 100 = exact); ``source``: ``offline`` or
    ``model``; ``fallback_reason``: why the model reply was not used (``None`` if it was, or no
    model was asked); ``dropped_metrics``: unknown ids the model proposed.

    Question shape (DESIGN.md §8 "Periods"): ``period`` is the resolved range ``[start, end]`` with
    ``end = reference_day`` and ``window_days = end - start + 1`` (``start`` None = all history);
    ``comparison`` is ``(kind, period_a, period_b)`` for two periods side by side
    (:func:`wag_cli.query.periods.comparison_periods`), else None; ``intent`` is what the answer must
    contain (:data:`INTENTS`); ``display_unit`` is the unit the question asks in ("hours") or None;
    ``corrections``: misspelled period words read as another (``[("febuary", "february")]``,
    :func:`wag_cli.query.periods.correct_period_words`), stated in the answer.

    With a model (DESIGN.md §8 "QueryParse with a model"): ``source`` is ``combined`` when both readings
    contributed; ``sources`` says per field (metrics, category, openness, period) where it came from
    (``offline``, ``model``, ``combined``; empty = every field from ``source``); ``overruled_metrics``:
    catalog ids the model proposed that were not kept; ``period_notes``: sentences the answer states
    about the period (a time expression not understood, or the model's reading of it, §11).
    """

    question: str
    metrics: list[str]
    window_days: int | None
    reference_day: date
    ref_offset: int
    openness: float
    category: str
    matches: list[dict] = field(default_factory=list)
    source: str = "offline"
    fallback_reason: str | None = None
    dropped_metrics: list[str] = field(default_factory=list)
    period: Period | None = None
    comparison: tuple[str, Period, Period] | None = None
    intent: str = "lookup"
    display_unit: str | None = None
    corrections: list[tuple[str, str]] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)
    overruled_metrics: list[str] = field(default_factory=list)
    period_notes: list[str] = field(default_factory=list)

    @property
    def resolved_period(self) -> Period:
        """``period``, or the rolling window ending on the reference day when none was set."""
        return self.period or rolling(self.reference_day, self.window_days)

    def to_json(self) -> dict:
        """JSON-ready dict: ``window_days`` is an int or ``"all"``, days ISO text; ``period_start``
        is None for all history; ``comparison`` is ``{"kind", "a", "b"}`` (periods as
        :meth:`Period.to_json`) or None."""
        per = self.resolved_period
        out = {
            "metrics": list(self.metrics),
            "window_days": "all" if self.window_days is None else self.window_days,
            "reference_day": self.reference_day.isoformat(),
            "openness": self.openness,
            "category": self.category,
            "ref_offset": self.ref_offset,
            "matches": [dict(m) for m in self.matches],
            "source": self.source,
            "period_start": per.start.isoformat() if per.start else None,
            "period_end": per.end.isoformat(),
            "period_label": per.label,
            "comparison": None if self.comparison is None else {
                "kind": self.comparison[0], "a": self.comparison[1].to_json(), "b": self.comparison[2].to_json()},
            "intent": self.intent,
            "display_unit": self.display_unit,
            "sources": {k: self.sources.get(k, self.source) for k in ("metrics", "category", "openness", "period")},
        }
        if self.fallback_reason:
            out["fallback_reason"] = self.fallback_reason
        if self.dropped_metrics:
            out["dropped_metrics"] = list(self.dropped_metrics)
        if self.corrections:
            out["corrections"] = [list(c) for c in self.corrections]
        if self.overruled_metrics:
            out["overruled_metrics"] = list(self.overruled_metrics)
        if self.period_notes:
            out["period_notes"] = list(self.period_notes)
        return out
