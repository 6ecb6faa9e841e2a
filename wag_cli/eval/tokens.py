"""Prompt size of an answer condition, in tokens (DESIGN.md §10 prompts; issue 7 item 4, issue 11).

The prompt is the exact one the model would get under that condition: the compact, budgeted data
block of :func:`wag_cli.answer.context.answer_context` (the builder :func:`wag_cli.answer.model.model_answer`
sends) in the method's prompt frame.

The count is an **estimate**: ceil(characters / 4) over every message's content (the usual rule of
thumb for English with BPE tokenisers). No tokenizer is used, because none works offline in this
project (tiktoken downloads its encodings on first use).
"""

from __future__ import annotations

from ..answer.context import TOKEN_METHOD as METHOD  # noqa: F401  (re-exported for reports)
from ..answer.context import estimate_tokens  # noqa: F401  (re-exported)


def answer_messages(question: str, sg, analysis: dict | None = None, budget: int | None = None,
                    full=None) -> list[dict]:
    """The messages :func:`wag_cli.answer.model.model_answer` would send for ``question`` and ``sg``
    (``full``: the FullContext subgraph that caps a WAG prompt, as model_answer gets it)."""
    from ..answer.model import model_data

    return model_data(question, sg, analysis, budget=budget, full=full).messages
