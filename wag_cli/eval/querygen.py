"""QueryGen (DESIGN.md §10; paper Table 23): query tuples -> questions of the nine categories.

Each tuple (:class:`wag_cli.eval.tuples.QueryTuple`) gets a category and an openness inside the
category's range (:data:`wag_cli.categories.CATEGORY_OPENNESS`), both drawn deterministically from
the seed: single- and multi-metric tuples are each put in a seeded order and dealt the nine
categories in turn, so every category appears once there are nine tuples of a kind.

* Offline: a phrasing of ``data/phrasings.json`` for the category and kind, filled with the metrics'
  plain names and a period phrase for the window (relative phrases — "over the past week",
  "today", "overall" — are read as of the reference day, which is the question's as-of day;
  one-day windows also name the day, "on 2020-01-15"). The phrasing is picked by a seeded hash.
* With a model: the paper's QueryGen step. The reply must validate (``jsonschema``) against
  :func:`reply_schema`, whose ``metrics`` field is the catalog ids the question is about; a reply
  whose metric set is not the tuple's is rejected and asked again (the rejection reason goes into
  the next request), an unusable reply likewise; after :data:`MAX_ATTEMPTS` the offline phrasing is
  stored, marked ``gen_status = 'fallback'``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from importlib import resources

import jsonschema

from ..catalog import Metric
from ..categories import CATEGORY_OPENNESS
from .tuples import QueryTuple

CATEGORIES: tuple[str, ...] = tuple(CATEGORY_OPENNESS)
MAX_ATTEMPTS = 3


@lru_cache(maxsize=1)
def load_phrasings() -> dict:
    """The phrasing data file ``wag_cli/eval/data/phrasings.json`` (see its ``_doc``)."""
    text = resources.files("wag_cli.eval").joinpath("data", "phrasings.json").read_text(encoding="utf-8")
    return json.loads(text)


def draw(*parts) -> int:
    """A deterministic 64-bit integer from the parts (sha256 of their '|'-joined text)."""
    return int.from_bytes(hashlib.sha256("|".join(map(str, parts)).encode("utf-8")).digest()[:8], "big")


def unit_draw(*parts) -> float:
    """A deterministic number in [0, 1) from the parts."""
    return draw(*parts) / 2.0**64


def plain_name(metric_id: str, catalog: dict[str, Metric]) -> str:
    """The metric as a person says it: ``plain_names`` of the data file, else the catalog name
    lower-cased (acronyms kept: "HRV RMSSD", "VO2 Max")."""
    from ..answer.wording import _lc

    names = load_phrasings()["plain_names"]
    if metric_id in names:
        return names[metric_id]
    m = catalog.get(metric_id)
    return _lc(m.name) if m else metric_id.replace("_", " ")


def join_names(names: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def period_phrase(window_label: str, reference_day: date, seed: int, key: str) -> str:
    """A period phrase for the window, picked by the seed (see ``periods`` in the data file)."""
    options = load_phrasings()["periods"][window_label]
    text = options[draw(seed, key, "period") % len(options)]
    return text.format(date=reference_day.isoformat(),
                       date_long=f"{reference_day:%B} {reference_day.day}, {reference_day.year}")


#: categories that need more than one day (DESIGN.md §10: no trend, comparison or relationship
#: over a 1-day window)
MULTI_DAY_CATEGORIES = ("Trend Analysis", "Comparative Insight", "Metric Relationships")


def fits_window(category: str, window_days: int | None) -> bool:
    """False for a trend, comparison or relationship over a 1-day window (DESIGN.md §10)."""
    return not (window_days == 1 and category in MULTI_DAY_CATEGORIES)


def assign_categories(tuples: list[QueryTuple], seed: int) -> dict[str, str]:
    """``{tuple_id: category}``: per kind, a seeded order dealt the nine categories in turn; a 1-day
    tuple dealt a category that needs several days (:func:`fits_window`) takes the next one that fits."""
    out: dict[str, str] = {}
    for kind in ("single", "multi"):
        group = sorted((t for t in tuples if t.kind == kind), key=lambda t: draw(seed, t.tuple_id, "category"))
        offset = draw(seed, kind) % len(CATEGORIES)
        for i, t in enumerate(group):
            j = 0
            while not fits_window(CATEGORIES[(i + offset + j) % len(CATEGORIES)], t.window_days):
                j += 1
            out[t.tuple_id] = CATEGORIES[(i + offset + j) % len(CATEGORIES)]
    return out


def openness_for(category: str, seed: int, key: str) -> float:
    """An openness inside the category's range (inclusive), 2 decimals, drawn from the seed."""
    lo, hi = CATEGORY_OPENNESS[category]
    value = round(lo + (hi - lo) * unit_draw(seed, key, "openness"), 2)
    return min(max(value, lo), hi)


def offline_question(t: QueryTuple, category: str, seed: int, catalog: dict[str, Metric]) -> tuple[str, str]:
    """``(question, phrasing_id)`` from the data file's templates for ``category`` and the tuple's kind."""
    kind = "single" if len(t.metrics) == 1 else "multi"
    templates = load_phrasings()["categories"][category][kind]
    i = draw(seed, t.tuple_id, "phrasing") % len(templates)
    return (fill(templates[i], t.metrics, t.window_label, t.reference_day, seed, t.tuple_id, catalog),
            f"{category}/{kind}/{i}")


def fill(template: str, metrics, window_label: str, reference_day: date, seed: int, key: str,
         catalog: dict[str, Metric] | None = None) -> str:
    """Fill a template's placeholders ({metric}, {metrics}, {m1}, {m2}, {period}); first letter upper."""
    from ..catalog import load_catalog

    catalog = catalog if catalog is not None else load_catalog()
    names = [plain_name(m, catalog) for m in metrics]
    text = template.format(
        metric=names[0], metrics=join_names(names), m1=names[0], m2=names[1] if len(names) > 1 else names[0],
        period=period_phrase(window_label, reference_day, seed, key),
    )
    return text[0].upper() + text[1:]


# --------------------------------------------------------------------------- model path

_SYSTEM = (
    "You write realistic questions that a person might ask a health assistant about their own "
    "wearable-device and questionnaire records. You write only the question, in everyday words, "
    "as the person would type it."
)

_INSTRUCTION = """\
The data block describes one question to write:
- "metrics": the metrics the question must be about, each {"id", "name", "unit"}; the question must
  involve every one of them and no other metric;
- "period": the period the question covers ("window_days" days ending on "reference_day", or "all"
  = the whole history up to that day); say it the way a person would ("last week", "over the past
  30 days", "on 2020-01-15", "overall"), as if asking on the reference day;
- "category" and its "openness" range (how open-ended the question is, 0 = one stored number,
  1 = a broad exploratory question); write a question of that category;
- optionally "abnormal_level" (how unusual the data is: low, medium, high, or missing = no value on
  the reference day) — do not state it, but it may shape what the person would ask;
- optionally "previous_rejection": why your previous reply was refused; fix that.

Reply with one JSON object: "question" (the question text), "metrics" (the ids from the data block
that the question is about), "category" (the category given), "openness" (a number inside the
range given)."""


def reply_schema(t: QueryTuple, category: str, catalog_ids: list[str]) -> dict:
    """JSON Schema of the QueryGen reply: question text, catalog ``metrics``, category, openness."""
    lo, hi = CATEGORY_OPENNESS[category]
    return {
        "type": "object",
        "properties": {
            "question": {"type": "string", "minLength": 8, "maxLength": 400},
            "metrics": {"type": "array", "items": {"type": "string", "enum": sorted(set(catalog_ids))},
                        "minItems": 1, "maxItems": 3},
            "category": {"type": "string", "enum": [category]},
            "openness": {"type": "number", "minimum": lo, "maximum": hi},
        },
        "required": ["question", "metrics", "category", "openness"],
        "additionalProperties": False,
    }


@dataclass
class Generated:
    """A generated question and how it came about."""

    question: str
    phrasing_id: str | None
    generator: str          # 'offline' | 'model:<name>'
    gen_status: str         # 'offline' | 'model' | 'fallback'
    gen_attempts: int
    gen_note: str | None = None


def model_question(t: QueryTuple, category: str, openness: float, client, catalog: dict[str, Metric],
                   offline: tuple[str, str], max_attempts: int = MAX_ATTEMPTS) -> Generated:
    """The paper's QueryGen call with validation and bounded regeneration (see the module docstring).

    ``client``: an object with ``chat_json(system, instruction, data, schema, name)`` (LLMClient).
    Never raises for a bad or absent reply: after ``max_attempts`` the offline ``(question,
    phrasing_id)`` is returned with ``gen_status='fallback'`` and the last reason in ``gen_note``.
    """
    schema = reply_schema(t, category, list(catalog))
    validator = jsonschema.Draft202012Validator(schema)
    lo, hi = CATEGORY_OPENNESS[category]
    data: dict = {
        "metrics": [{"id": m, "name": catalog[m].name if m in catalog else m,
                     "unit": catalog[m].unit if m in catalog else ""} for m in t.metrics],
        "period": {"window_days": t.window_label if t.window_days is None else t.window_days,
                   "reference_day": t.reference_day.isoformat()},
        "category": category,
        "openness": {"range": [lo, hi], "target": openness},
    }
    if t.abnormal_level:
        data["abnormal_level"] = t.abnormal_level
    reason = ""
    model = getattr(client, "chat_model", "unknown")
    for attempt in range(1, max_attempts + 1):
        if reason:
            data = {**data, "previous_rejection": reason, "attempt": attempt}
        try:
            reply = client.chat_json(_SYSTEM, _INSTRUCTION, data, schema, "query_gen")
        except Exception as exc:  # noqa: BLE001 - the model is optional and untrusted
            reason = " ".join(str(exc).split())[:200] or type(exc).__name__
            continue
        errors = sorted(validator.iter_errors(reply), key=lambda e: list(e.path))
        if errors:
            reason = f"the reply does not match the schema: {errors[0].message[:160]}"
            continue
        if set(reply["metrics"]) != set(t.metrics):
            reason = (f"the question must be about exactly the metrics {sorted(t.metrics)}; "
                      f"the reply named {sorted(set(reply['metrics']))}")
            continue
        return Generated(" ".join(reply["question"].split()), None, f"model:{model}", "model", attempt)
    return Generated(offline[0], offline[1], f"model:{model}", "fallback", max_attempts,
                     f"model QueryGen failed {max_attempts} time(s) ({reason}); offline phrasing stored")


def query_id(tuple_id: str, seed: int, question: str) -> str:
    """Stable id of a generated question: the tuple, the seed and the text (16 hex)."""
    return hashlib.sha256(f"{tuple_id}|{seed}|{question}".encode("utf-8")).hexdigest()[:16]


def generate(tuples: list[QueryTuple], *, seed: int, catalog: dict[str, Metric], client=None,
             on_done=None, categories: dict[str, str] | None = None) -> list[dict]:
    """Questions for ``tuples`` as ``eval_queries`` rows (dicts with every gold field).

    ``client`` None = offline. ``on_done(row)`` is called after each question (progress).
    ``categories`` (``{tuple_id: category}``) overrides :func:`assign_categories` over ``tuples``.
    """
    categories = categories or assign_categories(tuples, seed)
    rows = []
    for t in tuples:
        category = categories[t.tuple_id]
        openness = openness_for(category, seed, t.tuple_id)
        offline = offline_question(t, category, seed, catalog)
        if client is None:
            gen = Generated(offline[0], offline[1], "offline", "offline", 0)
        else:
            gen = model_question(t, category, openness, client, catalog, offline)
        row = {
            "query_id": query_id(t.tuple_id, seed, gen.question),
            "tuple_id": t.tuple_id,
            "kind": t.kind,
            "dataset": t.dataset,
            "subject_id": t.subject_id,
            "metrics": list(t.metrics),
            "reference_day": t.reference_day,
            "window_days": t.window_days,
            "abnormal_level": t.abnormal_level,
            "category": category,
            "openness": openness,
            "question": gen.question,
            "generator": gen.generator,
            "seed": seed,
            "phrasing_id": gen.phrasing_id,
            "gen_status": gen.gen_status,
            "gen_attempts": gen.gen_attempts,
            "gen_note": gen.gen_note,
            "tuple_order": t.sample_order,
        }
        rows.append(row)
        if on_done:
            on_done(row)
    return rows
