"""The answer with a language model: the method's prompt and the compact data block of
:mod:`wag_cli.answer.context` within a token budget; any failure falls back to the offline answer."""

from __future__ import annotations


from ..retrieve import Subgraph
from .offline import offline_answer
from .text import DISCLAIMER, Answer


def model_data(question: str, sg: Subgraph, analysis: dict | None = None, *, budget: int | None = None,
               cap: int | None = None, full: Subgraph | None = None):
    """The answer prompt of ``sg`` as :class:`wag_cli.answer.context.Context` (compact tables within
    ``budget`` tokens, default :data:`wag_cli.answer.context.DEFAULT_BUDGET`, and within ``cap``): the
    question, the period, the analysis (module docstring), the metrics with the guidance filtered to
    the subject's instruments (:func:`guidance_for`, as offline), edges for WAG, daily/weekly rows.
    ``full`` (FullContext, :func:`wag_cli.answer.context.full_context`) caps a WAG prompt at its size."""
    from .context import DEFAULT_BUDGET, answer_context

    budget = budget or DEFAULT_BUDGET
    if full is not None and sg.method == "wag" and full.nodes:
        full_tokens = answer_context(question, full, analysis, budget=budget, method="full").tokens
        cap = full_tokens if cap is None else min(cap, full_tokens)
    return answer_context(question, sg, analysis, budget=budget, cap=cap)


def model_answer(question: str, sg: Subgraph, client, analysis: dict | None = None, *, budget: int | None = None,
                 full: Subgraph | None = None) -> Answer:
    """Answer with a language model: the method's prompt and the compact data block of
    :func:`model_data` (DESIGN.md §10 prompts).

    ``client`` is a :class:`wag_cli.llm.LLMClient`. ``full`` (FullContext, from
    :func:`wag_cli.answer.context.full_context`) caps a WAG prompt at FullContext's size. The answer ends
    with :data:`DISCLAIMER`, as offline answers do; ``prompt_tokens``/``trimmed`` describe the prompt
    and ``cached`` says whether the reply came from the reply cache. Any failure falls back to
    :func:`offline_answer` with a note saying why.
    """
    try:
        ctx = model_data(question, sg, analysis, budget=budget, full=full)
        system, instruction = _prompt_pair(sg.method)
        text = client.chat_text(system=system, instruction=instruction, data=ctx.text, data_format="text")
    except Exception as exc:  # the model is optional and untrusted: never crash on it
        ans = offline_answer(question, sg, analysis)
        ans.note = f"model unavailable ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__}); offline answer shown"
        return ans
    text = text.strip()
    for note in reversed((analysis or {}).get("period_notes") or []):   # §11: how the period was read, stated
        text = f"Note: {note}.\n\n{text}"
    if DISCLAIMER not in text:
        text = f"{text}\n\n{DISCLAIMER}"
    cached = bool(getattr(client, "last_from_cache", False))
    notes = []
    if cached:
        notes.append("reply from the reply cache (no model request)")
    if ctx.trimmed:
        notes.append(f"prompt trimmed to {ctx.limit} tokens: left out {'; '.join(ctx.trimmed)}")
    return Answer(text=text, source=f"model:{getattr(client, 'chat_model', 'unknown')}",
                  note="; ".join(notes) or None, prompt_tokens=ctx.tokens, trimmed=ctx.trimmed, cached=cached)


def _prompt_pair(method: str) -> tuple[str, str]:
    from .. import prompts

    return prompts.answer_prompt(method)
