"""The answer prompt's data block: compact tables within a token budget (DESIGN.md §10 "Prompts").

:func:`answer_context` turns a retrieved :class:`wag_cli.retrieve.Subgraph` (and the question's
analysis, :mod:`wag_cli.answer`) into the text the model reads — ``key: value`` lines and ``|``
tables, one line per day per metric (or per 7-day block for windows longer than
:data:`LONG_WINDOW_DAYS`), never a JSON dump — and fits it into a token budget. When the prompt is
too long it leaves out, in this order, and says so on a ``trimmed:`` line:

1. the daily rows of neighbours, lowest weight (``rank_weight``/``w_final``) first;
2. the knowledge lines of neighbours, lowest weight first;
3. daily rows of primaries (least unusual first) become weekly summaries, then are left out;
4. whole neighbours, lowest weight first;
5. knowledge lines of primaries are shortened;
6. as a last resort the block is cut at the budget (``[cut to fit the token budget]``).

``cap`` bounds the prompt further: WAG's prompt is given the size of the FullContext prompt (all of
the subject's metrics in the window, :func:`full_context`) as its cap, so WAG's context is never
larger than FullContext's.

Token counts are an **estimate**, ceil(characters / 4) over the message contents
(:func:`estimate_tokens`): no tokenizer works offline in this project's environment (tiktoken
downloads its encodings; no Hugging Face tokenizer is installed).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from datetime import date, timedelta

from ..retrieve import Node, Subgraph
from .wording import measurement_note

CONTEXT_TOKENS = 4096        #: the context size the default budget is made for (small local models)
REPLY_TOKENS = 640           #: room kept for the reply (about 150 words plus headroom)
DEFAULT_BUDGET = CONTEXT_TOKENS - REPLY_TOKENS
LONG_WINDOW_DAYS = 14        #: longer windows show weekly summaries instead of daily rows
TOKEN_METHOD = "ceil(chars/4) estimate"
_KNOWLEDGE_CHARS = 220       #: a shortened knowledge line (trim step 5)


def estimate_tokens(messages: list[dict] | str) -> int:
    """ceil(total characters / 4) of a string or of every message's ``content``."""
    if isinstance(messages, str):
        return math.ceil(len(messages) / 4)
    return math.ceil(sum(len(m.get("content") or "") for m in messages) / 4)


@dataclass
class Context:
    """A built prompt: ``messages`` (for :func:`wag_cli.llm.build_messages`' frame), the data block
    ``text``, its size ``tokens`` (estimate), the ``limit`` it had to fit and ``trimmed`` (what was
    left out, in words; empty when nothing was)."""

    messages: list[dict]
    text: str
    tokens: int
    limit: int
    trimmed: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- number formatting


def num(v) -> str:
    """A compact number: '-' for None, integers without decimals, else 3-4 significant digits."""
    if v is None:
        return "-"
    if isinstance(v, bool):
        return str(v).lower()
    if not isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, float) and not math.isfinite(v):
        return "-"
    if float(v).is_integer() and abs(v) < 1e12:
        return str(int(v))
    a = abs(v)
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    return f"{v:.3g}"


def compact(obj) -> str:
    """A nested dict/list in brief ``{key: value, ...}`` form (None values dropped, numbers via
    :func:`num`, strings unquoted) — the analysis of an answer without JSON's quotes and indents."""
    if isinstance(obj, dict):
        parts = [f"{k}: {compact(v)}" for k, v in obj.items() if v is not None and v != [] and v != {}]
        return "{" + ", ".join(parts) + "}"
    if isinstance(obj, (list, tuple)):
        return "[" + "; ".join(compact(v) for v in obj) + "]"
    if isinstance(obj, (date,)):
        return obj.isoformat()
    if isinstance(obj, str):
        return " ".join(obj.split())
    return num(obj)


def _mean_sd(mean, sd, n) -> str:
    if mean is None:
        return "-"
    return f"{num(mean)} ± {num(sd)} ({n} d)" if sd is not None else f"{num(mean)} ({n} d)"


# --------------------------------------------------------------------------- the block's parts


def _weight(n: Node) -> float:
    w = n.rank_weight if n.rank_weight is not None else n.w_final
    return float(w) if w is not None else 0.0


def _period_line(sg: Subgraph, analysis: dict | None) -> str:
    per = (analysis or {}).get("period")
    if per and per.get("end"):
        start = per.get("start") or "first day"
        return f"period: {start} to {per['end']} ({per.get('days') or 'all'} days; {per.get('label') or ''})".replace("; )", ")")
    if sg.window_days is None:
        return f"period: all days up to {sg.reference_day.isoformat()}"
    start = sg.reference_day - timedelta(days=sg.window_days - 1)
    return f"period: {start.isoformat()} to {sg.reference_day.isoformat()} ({sg.window_days} days)"


def _metrics_table(nodes: list[Node], method: str) -> list[str]:
    cols = "id | name | role | unit | days | window mean [min..max] | before | usual | zeta"
    if method == "full":
        cols = "id | name | unit | days | window mean [min..max] | before | usual | zeta"
    out = ["metrics (" + cols + "):"]
    for n in nodes:
        d = n.data
        win = "-" if d.window_mean is None else f"{num(d.window_mean)} [{num(d.window_min)}..{num(d.window_max)}]"
        cells = [n.metric_id, n.name] + ([] if method == "full" else [n.role]) + [
            n.unit or "-", str(d.n_window_days), win,
            _mean_sd(d.baseline_mean, d.baseline_sd, d.n_baseline_days) if d.n_baseline_days else "-",
            _mean_sd(d.usual_mean, d.usual_sd, d.n_history_days), num(d.zeta)]
        out.append(" | ".join(cells))
    return out


def _knowledge_line(n: Node, short: bool = False) -> str | None:
    from .wording import guidance_for

    parts = []
    if n.description:
        parts.append(n.description.strip())
    rng = guidance_for(n.normal_range, n.measurement)
    if rng:
        parts.append(f"Range: {rng}")
    if n.role == "primary":
        rec = guidance_for(n.recommendations, n.measurement)
        if rec:
            parts.append(f"Advice: {rec}")
    if not parts:
        return None
    text = " ".join(" ".join(parts).split())
    if short and len(text) > _KNOWLEDGE_CHARS:
        text = text[:_KNOWLEDGE_CHARS - 3].rstrip() + "..."
    return f"{n.metric_id}: {text}"


def _edges_table(neigh: list[Node], pooled=None) -> list[str]:
    """The edges block; ``pooled``: the last day of the population correlations' pooled days."""
    pop_head = f"population rho (subject-days up to {pooled.isoformat()})" if pooled else "population rho (days)"
    out = ["edges (primary | neighbour | rank | w_final | w_global | w_local | your rho (days) | "
           f"{pop_head} | relationship):"]
    for n in neigh:
        mine = f"{num(n.r_s_signed)} ({n.n_s})" if n.r_s_signed is not None else (n.r_s_reason or "-")
        pop = f"{num(n.r_pop_signed)} ({n.n_pop})" if n.r_pop_signed is not None else (n.r_pop_reason or "-")
        out.append(" | ".join([n.primary_node, n.metric_id, str(n.rank), num(n.w_final), num(n.w_global),
                               num(n.w_local), mine, pop, " ".join((n.relationship or "-").split())]))
    return out


def _static_edges_table(neigh: list[Node]) -> list[str]:
    """StaticGraph's edges block: the general graph's prior weight only (DESIGN.md §10)."""
    out = ["edges (primary | neighbour | rank | w_prior | relationship):"]
    for n in neigh:
        out.append(" | ".join([n.primary_node, n.metric_id, str(n.rank), num(n.w_prior),
                               " ".join((n.relationship or "-").split())]))
    return out


def _value(r: dict) -> str:
    if r.get("value") is not None:
        return num(r["value"])
    text = " ".join(str(r.get("value_text") or "-").split())
    return text if len(text) <= 80 else text[:77] + "..."


def _daily_rows(n: Node) -> list[str]:
    return [f"{r['day']} | {n.metric_id} | {_value(r)} | {num(r.get('z'))}" for r in n.data.daily]


def _weekly_rows(n: Node, ref: date) -> list[str]:
    """7-day blocks ending on the reference day: start | metric | days | mean | min | max | most unusual day."""
    blocks: dict[int, list[dict]] = {}
    for r in n.data.daily:
        day = r["day"] if isinstance(r["day"], date) else date.fromisoformat(str(r["day"]))
        blocks.setdefault((ref - day).days // 7, []).append({**r, "day": day})
    out = []
    for k in sorted(blocks, reverse=True):
        rows = blocks[k]
        vals = [r["value"] for r in rows if r.get("value") is not None]
        start = ref - timedelta(days=7 * k + 6)
        if not vals:
            out.append(f"{start} | {n.metric_id} | {len(rows)} | text entries | - | - | -")
            continue
        top = max((r for r in rows if r.get("z") is not None), key=lambda r: abs(r["z"]), default=None)
        peak = f"{top['day']} ({num(top['value'])}, z {num(top['z'])})" if top else "-"
        out.append(f"{start} | {n.metric_id} | {len(vals)} | {num(sum(vals) / len(vals))} | {num(min(vals))} | "
                   f"{num(max(vals))} | {peak}")
    return out


# --------------------------------------------------------------------------- assembly and trimming


@dataclass
class _Plan:
    """What the block shows; each trim step edits it."""

    daily: dict[str, str]              # metric_id -> 'daily' | 'weekly' | 'none'
    knowledge: dict[str, str]          # metric_id -> 'full' | 'short' | 'none'
    dropped: list[str]                 # neighbours left out entirely
    notes: list[str]
    limit: int = DEFAULT_BUDGET


def _render(question: str, sg: Subgraph, analysis: dict | None, plan: _Plan, method: str) -> str:
    nodes = [n for n in sg.nodes if not (n.role == "neighbour" and n.metric_id in plan.dropped)]
    for n in list(nodes):                       # time asleep beside time in bed
        if n.companion is not None and n.companion.metric_id not in {x.metric_id for x in nodes}:
            nodes.insert(nodes.index(n), replace(n.companion, role="context"))
    seen: set[str] = set()
    uniq = []
    for n in nodes:                             # a neighbour of two primaries is one metrics row
        if n.metric_id not in seen:
            seen.add(n.metric_id)
            uniq.append(n)
    lines = [f"question: {' '.join(question.split())}",
             f"subject: {sg.subject_id}; reference day {sg.reference_day.isoformat()}",
             _period_line(sg, analysis)]
    if analysis:
        lines.append("analysis:")
        for k, v in analysis.items():
            if k == "period" or v is None or v == [] or v == {}:
                continue
            lines.append(f"- {k}: {compact(v)}")
    lines += _metrics_table(uniq, method)
    dataset = sg.subject_id.split(":", 1)[0]
    notes = [f"{n.metric_id}: {measurement_note(n, dataset)}" for n in uniq if measurement_note(n, dataset)]
    if notes:                  # the person-facing notes only (DESIGN.md §11)
        lines.append("measured:")
        lines += notes
    if method in ("rag", "wag", "static", "full"):
        know = []
        for n in uniq:
            mode = plan.knowledge.get(n.metric_id, "full")
            line = None if mode == "none" else _knowledge_line(n, short=mode == "short")
            if line:
                know.append(line)
        if know:
            lines.append("knowledge:")
            lines += know
    neigh = [n for n in sg.neighbours if n.metric_id not in plan.dropped]
    if method == "wag" and neigh:
        lines += _edges_table(neigh, sg.population_as_of)
    elif method == "static" and neigh:
        lines += _static_edges_table(neigh)
    daily, weekly = [], []
    for n in uniq:
        mode = plan.daily.get(n.metric_id, "daily")
        if mode == "daily":
            daily += _daily_rows(n)
        elif mode == "weekly":
            weekly += _weekly_rows(n, sg.reference_day)
    if daily:
        lines.append("daily (day | metric | value | z = |value - usual| / sd):")
        lines += sorted(daily)
    if weekly:
        lines.append("weekly (7 days from | metric | days | mean | min | max | most unusual day):")
        lines += weekly
    if plan.notes:
        lines.append(f"trimmed (to fit {plan.limit} tokens, left out): " + "; ".join(plan.notes))
    return "\n".join(lines)


def _messages(method: str, text: str) -> list[dict]:
    from .. import prompts
    from ..llm import build_messages

    system, instruction = prompts.answer_prompt(method)
    return build_messages(system, instruction, text, data_format="text")


def answer_context(question: str, sg: Subgraph, analysis: dict | None = None, *,
                   budget: int = DEFAULT_BUDGET, cap: int | None = None, method: str | None = None) -> Context:
    """The answer prompt of ``sg`` (its method, or ``method`` e.g. 'full') within ``min(budget, cap)``
    estimated tokens (module docstring for the format and the trim order).

    Returns a :class:`Context`; ``trimmed`` lists what was left out (also stated in the block).
    Raises ``ValueError`` for a budget that cannot hold even the instructions.
    """
    method = method or sg.method
    limit = min(budget, cap) if cap is not None else budget
    long = sg.window_days is None or sg.window_days > LONG_WINDOW_DAYS
    base_mode = "weekly" if long else "daily"
    plan = _Plan(daily={n.metric_id: base_mode for n in sg.nodes}, knowledge={}, dropped=[], notes=[], limit=limit)
    for n in sg.nodes:
        if n.companion is not None:
            plan.daily[n.companion.metric_id] = base_mode

    def build() -> tuple[str, list[dict], int]:
        text = _render(question, sg, analysis, plan, method)
        msgs = _messages(method, text)
        return text, msgs, estimate_tokens(msgs)

    text, msgs, tokens = build()
    fixed = estimate_tokens(_messages(method, ""))
    if limit <= fixed:
        raise ValueError(f"a token budget of {limit} cannot hold the instructions ({fixed} tokens)")
    neigh = sorted({n.metric_id: n for n in sg.neighbours}.values(), key=lambda n: (_weight(n), n.metric_id))
    # the asked metrics (and companions) lose rows least unusual first (lowest zeta), so FullContext
    # keeps its most telling metrics
    prim_nodes = [n for n in sg.nodes if n.role != "neighbour"] + [n.companion for n in sg.nodes if n.companion]
    prim = [n.metric_id for n in sorted(prim_nodes, key=lambda n: (n.data.zeta or 0.0, n.metric_id))
            if n.data.daily]

    def steps():
        for n in neigh:
            if n.data.daily:
                plan.daily[n.metric_id] = "none"
                yield f"{'weekly' if long else 'daily'} rows of neighbour {n.metric_id}"
        if method in ("rag", "wag"):
            for n in neigh:
                if _knowledge_line(n):
                    plan.knowledge[n.metric_id] = "none"
                    yield f"knowledge of neighbour {n.metric_id}"
        if not long:
            for mid in prim:
                plan.daily[mid] = "weekly"
                yield f"daily rows of {mid} (weekly summary shown)"
        for mid in prim:
            plan.daily[mid] = "none"
            yield f"weekly rows of {mid}"
        for n in neigh:
            plan.dropped.append(n.metric_id)
            yield f"neighbour {n.metric_id}"
        if method in ("rag", "wag"):
            for mid in prim:
                plan.knowledge[mid] = "short"
            yield "knowledge of the asked metrics shortened"

    trims = steps()
    while tokens > limit:
        step = next(trims, None)
        if step is None:
            break
        plan.notes.append(step)
        text, msgs, tokens = build()
    if tokens > limit:                          # last resort: cut the block at the budget
        room = (limit - fixed) * 4 - 40
        text = text[:max(room, 0)].rsplit("\n", 1)[0] + "\n[cut to fit the token budget]"
        msgs = _messages(method, text)
        tokens = estimate_tokens(msgs)
        plan.notes.append("block cut at the budget")
    return Context(messages=msgs, text=text, tokens=tokens, limit=limit, trimmed=list(plan.notes))


def full_context(con, sg: Subgraph, catalog) -> Subgraph:
    """FullContext for ``sg``'s subject and window (DESIGN.md §10; the authors' FullContextProcessor):
    ``sg``'s primary metrics first (role primary, even without data in the window), then every other
    catalog metric with data in the window (role neighbour, by metric id, no weights), each with its
    knowledge (description, range, advice) as WAG's nodes have it; from the same ``node_window.sql``
    as retrieval. Method ``'full'``, budget 0."""
    from ..db import fetch_dicts
    from ..retrieve import _node_data, _sql

    rows = fetch_dicts(con, _sql("node_window.sql"), {
        "subject": sg.subject_id, "metrics": list(catalog), "ref_day": sg.reference_day,
        "window_days": sg.window_days})
    by_id = {r.pop("metric_id"): r for r in rows}
    primary_ids = [n.metric_id for n in sg.primaries if n.metric_id in catalog]
    first = primary_ids[0] if primary_ids else None
    nodes = []

    def node(mid: str, role: str, rank: int) -> Node:
        m = catalog[mid]
        return Node(metric_id=mid, name=m.name, unit=m.unit, category=m.category, data_kind=m.data_kind,
                    role=role, primary_node=mid if role == "primary" else first, rank=rank,
                    reason="full context", description=m.description, normal_range=m.normal_range,
                    recommendations=m.recommendations, data=_node_data(by_id.get(mid, {})))

    nodes += [node(mid, "primary", 0) for mid in primary_ids]
    others = sorted(mid for mid, r in by_id.items() if r.get("n_window_days") and mid not in primary_ids)
    nodes += [node(mid, "neighbour", i) for i, mid in enumerate(others, start=1)]
    return Subgraph(subject_id=sg.subject_id, method="full", reference_day=sg.reference_day,
                    window_days=sg.window_days, openness=sg.openness, budget=0, nodes=nodes,
                    rank_by=sg.rank_by, as_of=sg.as_of)
