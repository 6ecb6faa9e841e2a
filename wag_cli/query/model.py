"""QueryParse with a model (DESIGN.md §8 "QueryParse with a model"): a configured model never makes the
parse worse than the offline parser (:func:`wag_cli.query.offline.parse_offline`).

:func:`parse` is the entry point of QueryParse for every caller: offline without a client, else the
offline reading corrected by one structured-output call, field by field:

* **period** — always the rules of §8 (:mod:`wag_cli.query.periods`, :func:`wag_cli.query.shape.question_shape`).
  Only when the question holds a time expression the rules do not recognise
  (:func:`wag_cli.query.periods.unrecognised_period`: "over the holidays") and they found no other period is
  the model asked for its first and last day; the proposal is used only if it is valid (start <= end
  <= the reference day t, overlapping the subject's data when ``data_range`` is given; a start before
  the data is moved to its first day) and ``period_notes`` states that it is the model's reading.
  Otherwise the expression is named as not understood (§11).
* **metrics** — a confident offline reading (:func:`offline_confident`) is kept as it is; where the
  offline matcher found nothing or was unsure (a typo-tolerant match), the model's proposal fills in:
  only catalog ids (or names matched to one lexically or by embedding cosine >= delta), at most
  :data:`MAX_MODEL_METRICS` new ones, and never for an overview question ("how am I doing overall?").
* **category** — the offline category when a cue phrase decided it (``wag_cli/data/category_cues.toml``),
  else the model's (one of Table 23's); a comparison or overview the rules detect still decides.
* **openness** — the model's when it lies inside the final category's range (Table 23), else the
  offline rule (the range's midpoint).

``ParsedQuery.sources`` says where each field came from (``offline``, ``model``, ``combined``), and
``source`` sums them up. Any model failure (transport, a reply that fails the schema after the
client's retries, a reply that is not an object) returns the offline parse with ``fallback_reason``.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from typing import Any

from ..catalog import Metric, load_catalog
from ..categories import CATEGORY_OPENNESS
from .periods import Period
from .parsed import ParsedQuery
from .offline import _check_question, not_understood_note, offline_reading, parse_offline
from .shape import category_openness, question_shape
from ..prompts import parse_prompt, parse_schema

#: The reply schemas: without a period, and with ``period_start``/``period_end`` (time expression asked).
PARSE_SCHEMA: dict = parse_schema()
PARSE_SCHEMA_PERIOD: dict = parse_schema(with_period=True)
#: How many metrics the model may add to a reading (the labelled questions ask about 1-3).
MAX_MODEL_METRICS = 3
#: Offline match kinds that count as a confident reading (a fuzzy match is a guess at a typo).
CONFIDENT_HOWS = frozenset({"exact", "coordination", "generic-head"})
#: Candidates shown to the model (a shortlist, :func:`wag_cli.query.shortlist.shortlist`).
SHORTLIST = 15


def offline_confident(hits: list[dict]) -> bool:
    """Whether the offline matcher read the question's metrics confidently (DESIGN.md §8): it found at
    least one and every match is exact (an id, name or alias, also through coordination or a generic
    head), none a typo-tolerant guess."""
    return bool(hits) and all(h["how"] in CONFIDENT_HOWS for h in hits)


def parse_data(question: str, as_of: date, catalog: dict[str, Metric], *, reading: dict | None = None,
               offline: ParsedQuery | None = None, time_expression: str | None = None) -> dict:
    """The QueryParse data block (DESIGN.md §8): the categories, the offline reading as the starting
    point, the candidate metrics, the time expression to date (with ``as_of``) if any, and the question
    last (fixed parts first, so a server can reuse the cached prefix)."""
    from .shortlist import shortlist

    reading = reading or offline_reading(question, catalog)
    offline = offline or parse_offline(question, as_of, catalog)
    data: dict[str, Any] = {
        "categories": {k: list(v) for k, v in CATEGORY_OPENNESS.items()},
        "offline_reading": {"metrics": [{"id": m, "name": catalog[m].name} for m in offline.metrics],
                            "category": offline.category, "openness": offline.openness},
        "catalog": shortlist(reading["text"], catalog, limit=SHORTLIST),
    }
    if time_expression:
        data["time_expression"] = time_expression
        data["as_of"] = as_of.isoformat()
    data["question"] = question
    return data


def parse_messages(question: str, as_of: date, catalog: dict[str, Metric]) -> list[dict]:
    """The messages a model QueryParse sends (for prompt-size reports)."""
    from ..llm import json_messages

    system, instruction = parse_prompt()
    return json_messages(system, instruction, parse_data(question, as_of, catalog), PARSE_SCHEMA)


def resolve_names(reply: Any, catalog: dict[str, Metric], client, delta: float | None = None) -> dict[str, dict]:
    """Map metric names the model returned that are not catalog ids onto nodes (DESIGN.md §8 step 1):
    an exact id/name/alias match first, else embedding cosine >= delta when the client has
    embeddings. Rewrites ``reply["metrics"]`` in place; returns ``{metric_id: match record}``."""
    from .embeddings import EMBED_DELTA, embedding_matches, lexical_match

    if not isinstance(reply, dict) or not isinstance(reply.get("metrics"), list):
        return {}
    names = [m for m in reply["metrics"] if isinstance(m, str) and m.strip() not in catalog]
    if not names:
        return {}
    found: dict[str, dict] = {}
    rest = []
    for name in names:
        mid = lexical_match(name, catalog)
        if mid:
            found[name] = {"phrase": name, "metric_id": mid, "score": 1.0, "how": "model+alias"}
        else:
            rest.append(name)
    if rest and hasattr(client, "embed"):
        try:
            delta = EMBED_DELTA if delta is None else delta
            for name, (mid, cos) in embedding_matches(rest, catalog, client, delta=delta).items():
                found[name] = {"phrase": name, "metric_id": mid, "score": round(cos, 4),
                               "how": f"model+embedding (cosine >= {delta})"}
        except Exception:  # noqa: BLE001 - embeddings are optional: unmatched names are dropped
            pass
    reply["metrics"] = [found[m]["metric_id"] if isinstance(m, str) and m in found else m
                        for m in reply["metrics"]]
    return {rec["metric_id"]: rec for rec in found.values()}


def validate_reply(reply: Any, catalog: dict[str, Metric]) -> dict:
    """The usable parts of a model reply: ``{"metrics" (catalog ids, deduplicated), "dropped" (other
    ids), "category" (None unless one of Table 23's), "openness" (None unless a finite number in
    [0, 1]), "period" ((start, end) dates or None)}``. ``ValueError`` if the reply is not an object or
    its metrics are not a list of strings (the client has already checked the schema)."""
    if not isinstance(reply, dict):
        raise ValueError(f"reply is {type(reply).__name__}, not an object")
    metrics = reply.get("metrics")
    if not isinstance(metrics, list) or not all(isinstance(x, str) for x in metrics):
        raise ValueError("metrics is not a list of strings")
    kept, dropped = [], []
    for mid in (m.strip() for m in metrics):
        if mid not in kept and mid not in dropped:
            (kept if mid in catalog else dropped).append(mid)
    category = reply.get("category") if reply.get("category") in CATEGORY_OPENNESS else None
    o = reply.get("openness")
    openness = float(o) if isinstance(o, (int, float)) and not isinstance(o, bool) and 0 <= o <= 1 else None
    period = None
    try:
        start, end = date.fromisoformat(reply["period_start"]), date.fromisoformat(reply["period_end"])
        period = (start, end)
    except (KeyError, TypeError, ValueError):
        pass
    return {"metrics": kept, "dropped": dropped, "category": category, "openness": openness, "period": period}


def combine_metrics(hits: list[dict], proposed: list[str], *, overview: bool = False) -> tuple[list[str], list[str]]:
    """``(metrics, overruled)``: the offline hits (:func:`wag_cli.query.metrics.match_metrics`) combined with the
    model's validated ``proposed`` ids (module docstring, DESIGN.md §8). ``overruled``: proposed ids not
    kept. A confident offline reading, an overview question or an empty proposal keep the offline
    metrics; otherwise the exact offline hits stay, a fuzzy one stays only if the model proposes it too,
    and the model's other ids follow (at most :data:`MAX_MODEL_METRICS`)."""
    offline = [h["metric_id"] for h in hits]
    if offline_confident(hits) or overview or not proposed:
        return offline, [m for m in proposed if m not in offline]
    keep = [h["metric_id"] for h in hits if h["how"] in CONFIDENT_HOWS or h["metric_id"] in proposed]
    added = [m for m in proposed if m not in keep][:MAX_MODEL_METRICS]
    metrics = keep + added
    return metrics, [m for m in proposed if m not in metrics]


def model_period(proposal: tuple[date, date] | None, phrase: str, as_of: date,
                 data_range: tuple[date, date] | None = None) -> tuple[Period | None, str]:
    """``(period, "")`` for a valid model reading of ``phrase``, else ``(None, reason)`` (DESIGN.md §8):
    start <= end <= ``as_of`` (t), and with ``data_range = (first, last)`` the subject's days: the period
    must end on or after ``first``; a start before ``first`` becomes ``first``."""
    if proposal is None:
        return None, "the model gave no dates for it"
    start, end = proposal
    if start > end:
        return None, f"the model's reading {start.isoformat()} to {end.isoformat()} ends before it starts"
    if end > as_of:
        return None, f"the model's reading ends on {end.isoformat()}, after the reference day {as_of.isoformat()}"
    if data_range is not None:
        first, _last = data_range
        if end < first:
            return None, f"the model's reading ends on {end.isoformat()}, before the data begin ({first.isoformat()})"
        start = max(start, first)
    return Period(start, end, phrase), ""


def _source(values: list[str]) -> str:
    return values[0] if len(set(values)) == 1 else "combined"


def parse(question: str, as_of: date, catalog: dict[str, Metric] | None = None, client=None,
          delta: float | None = None, data_range: tuple[date, date] | None = None) -> ParsedQuery:
    """QueryParse (DESIGN.md §8): offline without ``client``, else the offline reading corrected by the
    model as the module docstring says. ``client``: any object with ``chat_json(system, instruction,
    data, schema, name) -> dict`` (and optionally ``embed``). ``data_range``: the subject's (first, last)
    day, for validating a model's period. ``ValueError("empty question")`` for an empty question or an
    impossible period; any model failure -> the offline parse with ``fallback_reason``."""
    question = _check_question(question)
    catalog = catalog if catalog is not None else load_catalog()
    offline = parse_offline(question, as_of, catalog)
    if client is None:
        return offline
    reading = offline_reading(question, catalog)
    phrase = reading["unrecognised"] if not offline.period.label and offline.comparison is None else None
    schema = PARSE_SCHEMA_PERIOD if phrase else PARSE_SCHEMA
    data = parse_data(question, as_of, catalog, reading=reading, offline=offline, time_expression=phrase)
    try:
        system, instruction = parse_prompt()
        reply = client.chat_json(system, instruction, data, schema, "query_parse")
        resolved = resolve_names(reply, catalog, client, delta)
        fields = validate_reply(reply, catalog)
    except Exception as exc:  # noqa: BLE001 - any model failure falls back to the offline parse
        reason = " ".join(str(exc).split())[:200] or type(exc).__name__
        return replace(offline, fallback_reason=f"model parse unusable ({type(exc).__name__}: {reason}); "
                                                "used the offline parser")
    return _combined(offline, reading, fields, resolved, as_of, phrase, data_range)


def _combined(offline: ParsedQuery, reading: dict, fields: dict, resolved: dict, as_of: date,
              phrase: str | None, data_range: tuple[date, date] | None) -> ParsedQuery:
    """The offline parse with the model's validated ``fields`` filled in (module docstring)."""
    metrics, overruled = combine_metrics(reading["hits"], fields["metrics"], overview=offline.intent == "overview")
    m_src = _source(["offline" if m in offline.metrics else "model" for m in metrics] or ["offline"])
    category, c_src = offline.category, "offline"
    if not reading["cue"] and fields["category"]:
        category, c_src = fields["category"], "model"
    shape = question_shape(reading["text"], as_of, metrics=metrics, category=category, window=reading["window"],
                           offset=reading["offset"], window_phrase=reading["window_phrase"])
    if shape["category"] != category:            # a comparison or an overview the rules detected decides
        category, c_src = shape["category"], "offline"
    lo, hi = CATEGORY_OPENNESS[category]
    o = fields["openness"]
    if shape["intent"] != "overview" and o is not None and lo <= o <= hi:
        openness, o_src = round(o, 3), "model"
    else:
        openness, o_src = (hi if shape["intent"] == "overview" else category_openness(category)), "offline"
    period, p_src, notes = shape["period"], "offline", list(offline.period_notes)
    if phrase:
        proposed, why = model_period(fields["period"], phrase, as_of, data_range)
        if proposed is not None:
            period, p_src = proposed, "model"
            notes = [f"'{phrase}' is the model's reading: {proposed.describe()} (the period rules do not date it)"]
        else:
            notes = [f"{not_understood_note(phrase, period)} ({why})"]
    sources = {"metrics": m_src, "category": c_src, "openness": o_src, "period": p_src}
    matches = [dict(m) for m in offline.matches if m["metric_id"] in metrics]
    matches += [resolved.get(m, {"phrase": None, "metric_id": m, "score": None, "how": "model"})
                for m in metrics if m not in offline.metrics]
    return replace(
        offline, metrics=metrics, category=category, openness=openness, period=period,
        window_days=period.window_days, reference_day=period.end, ref_offset=(period.end - as_of).days,
        comparison=shape["comparison"], intent=shape["intent"], display_unit=shape["display_unit"],
        matches=matches, source=_source(list(sources.values())), sources=sources,
        dropped_metrics=fields["dropped"], overruled_metrics=overruled, period_notes=notes)
