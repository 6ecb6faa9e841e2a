"""EdgeGen (DESIGN.md §9; paper Algorithm 1): a new node against every existing node.

One request per (new node, batch of existing nodes). The reply is keyed by the existing node ids
(all required, nothing else — :func:`edgegen_schema`): each judgement says whether the pair is
related, its prior strength on the seed's scale (strong 0.7-1.0, moderate 0.3-0.6, weak 0.1-0.2;
below 0.1 = unrelated), the confidence and the relationship (or, for an unrelated pair, the reason).
"""

from __future__ import annotations

SYSTEM = ("You judge how pairs of health metrics relate, for a knowledge graph that guides a "
          "personal health assistant. You are conservative: no link without a known mechanism or evidence.")

INSTRUCTION = """\
The data block gives one metric ("metric": id, name, description) and "others" (id -> name). For
every other metric judge the pair: "strength" from 0 to 1 (strong 0.7-1.0: direct causal or strong
correlational evidence; moderate 0.3-0.6: plausible mechanism or modest evidence; weak 0.1-0.2:
indirect or speculative; below 0.1: unrelated), "confidence" (high, medium or low) and "text" (one
sentence: the mechanism and its direction, or for an unrelated pair why). Reply with
{"pairs": {<other id>: {"strength": ..., "confidence": ..., "text": ...}, ...}} for exactly the ids given."""

JUDGEMENT_SCHEMA = {
    "type": "object",
    "properties": {
        "strength": {"type": "number", "minimum": 0, "maximum": 1},
        "confidence": {"type": "string", "enum": ["high", "medium", "low"]},
        "text": {"type": "string", "minLength": 3, "maxLength": 400},
    },
    "required": ["strength", "confidence", "text"],
    "additionalProperties": False,
}

UNRELATED_BELOW = 0.1   #: strengths below this are "unrelated" (no edge; DESIGN.md §9)


def edgegen_schema(others: list[str]) -> dict:
    """Reply schema for one batch: ``{"pairs": {other_id: JUDGEMENT_SCHEMA}}``, every id required
    (the judgement schema written once under ``$defs``)."""
    return {"$defs": {"pair": JUDGEMENT_SCHEMA}, "type": "object",
            "properties": {"pairs": {"type": "object", "properties": {o: {"$ref": "#/$defs/pair"} for o in others},
                                     "required": list(others), "additionalProperties": False}},
            "required": ["pairs"], "additionalProperties": False}


def edgegen(client, node: dict, others: dict[str, str]) -> dict[str, dict]:
    """``{other_id: {"strength", "confidence", "text"}}`` for ``node`` (a seed row) against ``others``
    (``{id: name}``), from one validated reply. Raises the client's errors."""
    data = {"metric": {"id": node["metric_id"], "name": node["name"], "description": node.get("description", "")},
            "others": others}
    return client.chat_json(SYSTEM, INSTRUCTION, data, edgegen_schema(list(others)), "edge_gen")["pairs"]


def seed_rows(a: str, b: str, judgement: dict) -> tuple[str, dict]:
    """``('edge', prior_edges row)`` or ``('unrelated', prior_unrelated_pairs row)`` for a judgement;
    strengths are rounded to 2 decimals and edges kept within [0.1, 1.0]."""
    na, nb = (a, b) if a < b else (b, a)
    w = round(float(judgement["strength"]), 2)
    if w < UNRELATED_BELOW:
        return "unrelated", {"node_a": na, "node_b": nb, "reason": judgement["text"]}
    return "edge", {"node_a": na, "node_b": nb, "w_prior": f"{min(w, 1.0):g}", "confidence": judgement["confidence"],
                    "relationship": judgement["text"]}
