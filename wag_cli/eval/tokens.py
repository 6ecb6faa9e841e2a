"""Prompt size of an answer condition, in tokens (DESIGN.md §10 prompts; issue 7 item 4).

The prompt is the exact one the model would get under that condition: ``prompts.answer_prompt`` for
the method, the question and ``Subgraph.to_json`` as the fenced data block, through
``llm.build_messages`` — the same frame :func:`wag_cli.answer.model_answer` sends.

The count is an **estimate**: ceil(characters / 4) over every message's content (the usual rule of
thumb for English and JSON with BPE tokenisers). No tokenizer is used, because none ships offline
with this project (tiktoken downloads its encodings on first use).
"""

from __future__ import annotations

import math

METHOD = "ceil(chars/4) estimate"


def answer_messages(question: str, sg) -> list[dict]:
    """The messages :func:`wag_cli.answer.model_answer` would send for ``question`` and ``sg``."""
    from .. import prompts
    from ..llm import build_messages

    system, instruction = prompts.answer_prompt(sg.method)
    data = {"question": question, "subgraph": sg.to_json(include_knowledge=sg.method != "base")}
    return build_messages(system, instruction, data)


def estimate_tokens(messages: list[dict]) -> int:
    """ceil(total characters of the message contents / 4)."""
    return math.ceil(sum(len(m.get("content") or "") for m in messages) / 4)
