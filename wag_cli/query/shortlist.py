"""Candidate metrics for the QueryParse prompt (DESIGN.md §8, §10 prompts; issue 11 item 3).

The model is offered a shortlist, not the whole catalog (103 nodes are ~9,600 tokens): the metrics
the offline matcher finds in the question (:func:`wag_cli.query.metrics.match_metrics`), then the other
metrics of their categories, then the metrics whose names and aliases are closest to the question's
words (rapidfuzz ``token_set_ratio`` on lower-cased text), data-bearing metrics first — at most
``limit`` entries, each with at most :data:`MAX_ALIASES` aliases.
"""

from __future__ import annotations

from rapidfuzz import fuzz

from ..catalog import Metric

DEFAULT_LIMIT = 20
MAX_ALIASES = 4


def _closeness(question: str, m: Metric) -> float:
    q = question.lower()
    texts = [m.name, m.metric_id.replace("_", " "), *m.aliases]
    return max(fuzz.token_set_ratio(q, t.lower()) for t in texts)


def shortlist(question: str, catalog: dict[str, Metric], limit: int = DEFAULT_LIMIT) -> list[dict]:
    """``[{"id", "name", "category", "aliases"}]``: at most ``limit`` candidate metrics for
    ``question`` (module docstring for the order). Deterministic; ties by catalog order."""
    from .metrics import match_metrics

    order = {mid: i for i, mid in enumerate(catalog)}
    matched = [h["metric_id"] for h in match_metrics(question, catalog) if h["metric_id"] in catalog]
    cats = {catalog[mid].category for mid in matched}
    has_data = {mid for mid, m in catalog.items() if m.data_sources or m.origin in ("dataset", "both")}
    score = {mid: _closeness(question, m) for mid, m in catalog.items()}

    def rank(mid: str):
        return (mid not in has_data, -score[mid], order[mid])

    picked = list(dict.fromkeys(matched))
    picked += sorted((mid for mid, m in catalog.items() if m.category in cats and mid not in picked), key=rank)[
        : max(0, limit // 2 - len(picked))]
    picked += sorted((mid for mid in catalog if mid not in picked), key=rank)
    return [{"id": mid, "name": catalog[mid].name, "category": catalog[mid].category,
             "aliases": list(catalog[mid].aliases[:MAX_ALIASES])} for mid in picked[:limit]]
