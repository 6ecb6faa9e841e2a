"""NodeGen (DESIGN.md §9; paper Algorithm 1): a model writes the node record of each new metric.

One request per batch of metric names; the reply is an object keyed by the names given (every name
required, nothing else allowed — :func:`nodegen_schema`, checked by ``jsonschema`` in
:meth:`wag_cli.llm.LLMClient.chat_json`), so a reply that skips or invents a metric is re-asked,
then rejected. Names and hints travel only in the fenced data block.
"""

from __future__ import annotations

import re

from .seeds import CATEGORIES

SYSTEM = ("You write entries of a health knowledge graph about wearable-device, phone-sensing and "
          "questionnaire metrics. You are accurate, brief and cautious; you never give diagnoses.")

INSTRUCTION = """\
For every metric in the data block ("metrics": name -> hints such as dataset, column, observed
values), write its node: "metric_id" (snake_case of the name, a-z, 0-9, _), "name", "category" (one
of: {cats}), "unit" (the unit its values are stored in, e.g. minutes, bpm, ms, %, steps, kcal, m,
score, text), "data_kind" (numeric or text), "description" (2-3 sentences: what it measures and why
it matters), "normal_range" (typical range in plain words, or "varies by person"), "recommendations"
(one or two safe, general suggestions, no diagnosis or medication), "aliases" (words people use for
it, lower case), "physical_min"/"physical_max" (impossible-value bounds in the unit, or null),
"ratio_scale" (true when zero means none of it). Reply with {{"nodes": {{<name>: node, ...}}}} using
exactly the names given.""".format(cats=", ".join(CATEGORIES))

NODE_SCHEMA = {
    "type": "object",
    "properties": {
        "metric_id": {"type": "string", "pattern": "^[a-z][a-z0-9_]{0,63}$"},
        "name": {"type": "string", "minLength": 1, "maxLength": 80},
        "category": {"type": "string", "enum": list(CATEGORIES)},
        "unit": {"type": "string", "minLength": 1, "maxLength": 60},
        "data_kind": {"type": "string", "enum": ["numeric", "text"]},
        "description": {"type": "string", "minLength": 10, "maxLength": 1200},
        "normal_range": {"type": "string", "minLength": 1, "maxLength": 600},
        "recommendations": {"type": "string", "minLength": 1, "maxLength": 800},
        "aliases": {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 60}, "maxItems": 15},
        "physical_min": {"type": ["number", "null"]},
        "physical_max": {"type": ["number", "null"]},
        "ratio_scale": {"type": "boolean"},
    },
    "required": ["metric_id", "name", "category", "unit", "data_kind", "description", "normal_range",
                 "recommendations", "aliases", "ratio_scale"],
    "additionalProperties": False,
}


def nodegen_schema(names: list[str]) -> dict:
    """Reply schema for a batch: ``{"nodes": {name: NODE_SCHEMA}}`` with every name required (the node
    schema written once under ``$defs``, so the prompt's schema note stays short)."""
    return {"$defs": {"node": NODE_SCHEMA}, "type": "object",
            "properties": {"nodes": {"type": "object", "properties": {n: {"$ref": "#/$defs/node"} for n in names},
                                     "required": list(names), "additionalProperties": False}},
            "required": ["nodes"], "additionalProperties": False}


def snake(name: str) -> str:
    """``'Caffeine intake (mg)'`` -> ``'caffeine_intake_mg'`` (a seed metric_id)."""
    s = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
    if not s or not s[0].isalpha():
        s = "m_" + s
    return s[:64]


def nodegen(client, batch: list[dict]) -> dict[str, dict]:
    """``{input name: node dict}`` for ``batch`` (``[{"name", **hints}]``) from one validated reply.

    Raises :class:`wag_cli.llm.LLMReplyError` / :class:`LLMUnavailable` (nothing is written then).
    """
    names = [m["name"] for m in batch]
    data = {"metrics": {m["name"]: {k: v for k, v in m.items() if k != "name"} for m in batch}}
    reply = client.chat_json(SYSTEM, INSTRUCTION, data, nodegen_schema(names), "node_gen")
    return reply["nodes"]
