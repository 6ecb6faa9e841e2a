"""Answering a question from a retrieved subgraph (DESIGN.md §8; the paper's answer step).

Offline (default, deterministic): a data-grounded answer assembled from the subgraph — each primary
metric's window values against the person's usual range, the most abnormal days, the related metrics
with why they were retrieved and what they showed, the catalog's recommendations — stating plainly
when a metric has no data in the window.

With a model: the method's prompt (``prompts.answer_prompt``) and the subgraph as fenced JSON data,
through :class:`wag_cli.llm.LLMClient` (temperature 0.1, timeouts, retries, cached replies).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .retrieve import Node, Subgraph

# |window mean - usual mean| / usual sd below this is "about your usual level"
USUAL_BAND_SD = 0.5
DISCLAIMER = "This summary describes your recorded data; it is not a diagnosis or medical advice."


@dataclass
class Answer:
    """An answer and where it came from ('offline' or 'model:<name>'); ``note`` explains a fallback."""

    text: str
    source: str
    note: str | None = None


def _lc(name: str) -> str:
    """Lower-case a name for use mid-sentence, keeping acronyms ("HRV RMSSD", "VO2 Max")."""
    words = name.split()
    return " ".join(w if (len(w) > 1 and w[1].isupper()) or any(ch.isdigit() for ch in w) else w.lower()
                    for w in words)


def is_clock_unit(unit: str) -> bool:
    """Bedtime metrics are minutes relative to local midnight of the wake-up day (catalog unit)."""
    return unit.startswith("minutes from")


def fmt(value: float | None, unit: str = "") -> str:
    """Human formatting of a catalog value: 1 decimal below 100, none above; unit appended.

    Clock-time metrics (minutes from midnight of the wake-up day) print as HH:MM, e.g. -30 -> 23:30.
    """
    if value is None:
        return "n/a"
    if is_clock_unit(unit):
        m = int(round(value)) % 1440
        return f"{m // 60:02d}:{m % 60:02d}"
    if abs(value) >= 100 or (value == int(value) and abs(value) < 1e15):
        text = f"{value:,.0f}"
    elif abs(value) >= 1 or value == 0:
        text = f"{value:.1f}"
    else:
        text = f"{value:.3g}"                      # 0-1 indices and small deviations keep 3 digits
    unit = re.sub(r"\s*\(.*?\)", "", unit)          # "index (0-1)" -> "index"
    if unit and unit not in ("score", "text", "count", "steps"):
        return f"{text} {unit}"
    if unit == "steps":
        return f"{text} steps"
    return text


def window_phrase(sg: Subgraph) -> str:
    if sg.window_days is None:
        return f"all days up to {sg.reference_day.isoformat()}"
    if sg.window_days == 1:
        return f"{sg.reference_day.isoformat()}"
    return f"the {sg.window_days} days ending {sg.reference_day.isoformat()}"


def compare_to_usual(node: Node) -> str | None:
    """'above/below/about your usual level' from window mean vs usual mean ± sd; None without data."""
    d = node.data
    if d.window_mean is None or d.usual_mean is None:
        return None
    dev = d.window_dev_sd                      # computed by wag_node_window
    if dev is None or abs(dev) < USUAL_BAND_SD:
        return "about your usual level"
    return f"{'above' if dev > 0 else 'below'} your usual level ({dev:+.1f} SD)"


def measurement_note(node: Node) -> str | None:
    """The instrument/scale note of the subject's dataset, without source-document references."""
    if not node.measurement:
        return None
    text = re.sub(r"\s*\((?:FORMATS|DESIGN)[^)]*\)", "", node.measurement)
    text = re.sub(r"[;,]?\s*(?:FORMATS|DESIGN)(?:\.md)? §[\d.]+(?:, §[\d.]+)*\.?", ".", text)
    text = re.sub(r"\.(\s*\.)+", ".", " ".join(text.split()))
    return text.strip(" ;,.")


def describe_node_data(node: Node, sg: Subgraph, *, max_days: int = 3) -> list[str]:
    """Sentences about a node's data in the window (numbers from the warehouse, nothing invented)."""
    d = node.data
    if node.category == "Demographic" and d.daily:
        last = d.daily[-1]
        shown = last.get("value_text") or fmt(last.get("value"), node.unit)
        return [f"{node.name}: {shown} (profile)."]
    if node.data_kind == "text" or (d.n_window_days and d.window_mean is None):
        texts = [f"{r['day']}: {r['value_text']}" for r in d.daily if r.get("value_text")]
        if not texts:
            return [f"No {_lc(node.name)} entries in {window_phrase(sg)}."]
        shown = "; ".join(str(t) for t in texts[-5:])
        return [f"{len(texts)} {_lc(node.name)} entr{'y' if len(texts) == 1 else 'ies'} in {window_phrase(sg)}: {shown}."]
    if d.n_window_days == 0:
        if d.n_history_days == 0:
            return [f"You have no {_lc(node.name)} data recorded up to {sg.reference_day.isoformat()} "
                    "(your device or dataset may not measure it)."]
        last = f"; the last value is from {d.last_day.isoformat()} (ask with --as-of {d.last_day.isoformat()})" \
            if d.last_day else ""
        return [f"No {_lc(node.name)} data in {window_phrase(sg)}{last}. "
                f"Your usual level from {d.n_history_days} earlier day{'' if d.n_history_days == 1 else 's'}: "
                f"{fmt(d.usual_mean, node.unit)}."]
    out = []
    days_word = "day" if (sg.window_days or d.n_window_days) == 1 else "days"
    span = "" if sg.window_days is None else f" of {sg.window_days}"
    if d.n_window_days == 1:
        out.append(f"{node.name}: {fmt(d.window_mean, node.unit)} ({d.n_window_days}{span} {days_word} with data).")
    else:
        out.append(
            f"{node.name}: average {fmt(d.window_mean, node.unit)} over {d.n_window_days}{span} {days_word} "
            f"with data (range {fmt(d.window_min, node.unit)} to {fmt(d.window_max, node.unit)})."
        )
    constant = d.usual_sd is not None and d.usual_sd <= 1e-9 * max(1.0, abs(d.usual_mean or 0.0))
    if d.usual_mean is not None and d.n_history_days >= 2 and constant:
        out.append(f"It has been {fmt(d.usual_mean, node.unit)} on all {d.n_history_days} days recorded, "
                   "so it carries no information here (the device may not measure it).")
    elif d.usual_mean is not None and d.n_history_days >= 2:
        sd_unit = "min" if is_clock_unit(node.unit) else node.unit
        sd = f" ± {fmt(d.usual_sd, sd_unit)}" if d.usual_sd else ""
        cmp_ = compare_to_usual(node)
        out.append(f"Your usual level is {fmt(d.usual_mean, node.unit)}{sd} ({d.n_history_days} days); "
                   f"this window is {cmp_}.")
    notable = sorted((r for r in d.daily if r.get("z") is not None and r.get("value") is not None),
                     key=lambda r: (-r["z"], str(r["day"])))[:max_days]
    notable = [r for r in notable if r["z"] >= 1.0]
    if notable:
        parts = [f"{r['day']} ({fmt(r['value'], node.unit)}, {r['z']:.1f} SD from usual)" for r in notable]
        out.append("Most unusual days: " + ", ".join(parts) + ".")
    return out


def offline_answer(question: str, sg: Subgraph) -> Answer:
    """Deterministic answer built from the subgraph only (no model)."""
    lines: list[str] = []
    lines.append(f"Looking at {window_phrase(sg)} for {sg.subject_id}:")
    lines.append("")
    for p in sg.primaries:
        lines.append(f"* {p.name} ({p.metric_id})")
        for s in describe_node_data(p, sg):
            lines.append(f"  {s}")
        if p.companion is not None and p.companion.data.n_window_days:
            c = p.companion
            lines.append(f"  Of that, {_lc(c.name)}: average {fmt(c.data.window_mean, c.unit)} "
                         f"(usual {fmt(c.data.usual_mean, c.unit)}; {compare_to_usual(c)}).")
        note = measurement_note(p)
        if note:
            lines.append(f"  How it is measured here: {note}")
        if sg.method != "base" and p.normal_range:
            lines.append(f"  General guidance: {p.normal_range}")
    neigh, seen = [], {}
    for n in sg.neighbours:                     # a neighbour of two primaries is described once
        if n.metric_id in seen:
            seen[n.metric_id].append(n.primary_node)
            continue
        seen[n.metric_id] = [n.primary_node]
        neigh.append(n)
    if neigh:
        lines.append("")
        lines.append("Related metrics the graph retrieved (ranked by w_final):")
        for n in neigh:
            why = []
            if n.r_s_signed is not None and n.n_s:
                why.append(f"your own data: Spearman rho {n.r_s_signed:+.2f} over {n.n_s} days")
            elif n.r_pop_signed is not None and n.n_pop:
                why.append(f"population data: rho {n.r_pop_signed:+.2f} over {n.n_pop} subject-days")
            else:
                why.append("prior knowledge")
            if n.w_local is not None:
                why.append("unusual in this window" if (n.data.zeta or 0) >= 1 else "its window level")
            lines.append(f"* {n.name} — related to {' and '.join(seen[n.metric_id])} "
                         f"(w_final {n.w_final:.2f}; {', '.join(why)}).")
            if n.relationship:
                lines.append(f"  Why it matters: {n.relationship}")
            for s in describe_node_data(n, sg, max_days=2):
                lines.append(f"  {s}")
    recs = [p for p in sg.primaries if p.recommendations] if sg.method != "base" else []
    if recs:
        lines.append("")
        lines.append("What may help:")
        for p in recs:
            lines.append(f"* {p.recommendations}")
    lines.append("")
    lines.append(DISCLAIMER)
    return Answer(text="\n".join(lines), source="offline")


def model_answer(question: str, sg: Subgraph, client) -> Answer:
    """Answer with a language model: the method's prompt, the question and subgraph as fenced data.

    ``client`` is a :class:`wag_cli.llm.LLMClient`. Any failure falls back to :func:`offline_answer`
    with a note saying why.
    """
    from . import prompts

    system, instruction = prompts.answer_prompt(sg.method)
    data = {"question": question, "subgraph": sg.to_json(include_knowledge=sg.method != "base")}
    try:
        text = client.chat_text(system=system, instruction=instruction, data=data)
    except Exception as exc:  # the model is optional and untrusted: never crash on it
        ans = offline_answer(question, sg)
        ans.note = f"model unavailable ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__}); offline answer shown"
        return ans
    return Answer(text=text.strip(), source=f"model:{getattr(client, 'chat_model', 'unknown')}")
