"""Structured-output request shapes (issue 11): how a JSON reply is asked for, per server.

One request shape per server, :data:`SHAPES` — ``json_schema``, ``json_object`` with the schema
(llama.cpp), plain text with the schema in the instruction — found on the first JSON call (a 400,
or a 500 whose message names the response format (:data:`FORMAT_WORDS`), steps down) and
remembered per base URL and model, in this process (``_SHAPE_BY_SERVER``) and in the reply cache's
``llm_shapes`` table (:class:`wag_cli.llm.cache.ReplyCache`).

Shapes: :func:`response_format` gives the ``response_format`` request field of a shape (a dict, or
None for ``text``). Errors: ``ValueError`` for an unknown shape name.
"""

from __future__ import annotations

import re

#: Structured-output request shapes, tried in this order (DESIGN.md §9; issue 11 item 4):
#: ``json_schema`` (OpenAI), ``json_object`` with the schema inside (llama.cpp server), and plain
#: text with the schema stated in the instruction (every server). The reply is validated either way.
SHAPES = ("json_schema", "json_object+schema", "text")

# Shape accepted per (base URL, model) in this process; also kept in the reply cache file (table
# llm_shapes), so a later `wag` command does not rediscover it.
_SHAPE_BY_SERVER: dict[tuple[str, str], int] = {}

# A 400 or 500 whose message names the structured-output request is a rejected shape (step down);
# any other 400/500 is a failure of the request itself (too long, server error) and is reported.
FORMAT_WORDS = re.compile(r"response_format|json_schema|json_object|grammar|schema", re.IGNORECASE)


def response_format(shape: str, schema: dict, name: str) -> dict | None:
    """The ``response_format`` request field of a shape of :data:`SHAPES` (None for ``text``)."""
    if shape == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": False}}
    if shape == "json_object+schema":
        return {"type": "json_object", "schema": schema}
    if shape == "text":
        return None
    raise ValueError(f"unknown structured-output shape {shape!r}; expected one of {', '.join(SHAPES)}")

