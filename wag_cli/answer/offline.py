"""The offline answer (deterministic, no model): the verdict first, then each asked metric, the
related metrics that changed and the guidance (DESIGN.md §11)."""

from __future__ import annotations


from ..retrieve import Node, Subgraph
from .wording import _lc, guidance_fits, measurement_note, display_unit_for, fmt, guidance_for, label
from .render import render_comparison, render_influences, render_overview, render_relationships, render_trends
from .text import DISCLAIMER, Answer, describe_node_data


def _shown_companion(p: Node) -> Node | None:
    """The companion described first beside primary ``p`` (time asleep beside time in bed), when it has
    any data up to the reference day: with none in the window it still leads, saying so, so that time
    in bed is never the first "sleep" figure (a user review: a day without a record led with 9.2 h
    in bed labelled as total sleep)."""
    c = p.companion
    return c if c is not None and (c.data.n_window_days or c.data.n_history_days) else None


def offline_answer(question: str, sg: Subgraph, analysis: dict | None = None) -> Answer:
    """Deterministic answer built from the subgraph and the question's analysis (no model).

    ``analysis``: the dict of :func:`wag_cli.analysis.question_analysis` (module docstring); without it
    the answer describes the subgraph only.
    """
    from .verdict import verdict_lines
    from .findings import from_rows

    analysis = analysis or {}
    unit = analysis.get("display_unit")
    lines: list[str] = []
    found = from_rows(analysis.get("findings") or [])
    dataset = sg.subject_id.split(":", 1)[0]
    # the finding first (DESIGN.md §11): the verdict, then the evidence
    # question_analysis stores the verdict it computed (the model gets the same); worded once
    lines += analysis.get("verdict") or verdict_lines(sg, analysis, found)
    lines.append("")
    intent = analysis.get("intent")
    shaped: list[str] = []
    if analysis.get("relationships"):
        shaped += render_relationships(analysis["relationships"])
    if analysis.get("influences"):
        shaped += render_influences(analysis["influences"])
    if analysis.get("trends"):
        shaped += render_trends(analysis["trends"], unit)
    if analysis.get("comparison"):
        shaped += render_comparison(analysis["comparison"], unit)
    if analysis.get("overview") is not None and intent == "overview":
        shaped += render_overview(analysis["overview"], {p.metric_id: p.name for p in sg.nodes},
                                  {p.metric_id: p for p in sg.nodes})
    shaped += [f"Note: {n}." for n in analysis.get("notes") or []]
    if shaped:
        lines += shaped
        lines.append("")
        lines.append("The data behind it:")
    for p in sg.primaries:
        comp = _shown_companion(p)
        if comp is not None:                     # actual sleep first, time in bed named as such
            lines.append(f"* {label(comp.metric_id, comp.name)} ({comp.metric_id})")
            for s in describe_node_data(comp, sg, display_unit=unit, name=label(comp.metric_id, comp.name),
                                        analysis=analysis):
                lines.append(f"  {s}")
        lines.append(f"* {label(p.metric_id, p.name) if comp is not None else p.name} ({p.metric_id})")
        for s in describe_node_data(p, sg, display_unit=unit, analysis=analysis,
                                    name=label(p.metric_id, p.name) if comp is not None else None):
            lines.append(f"  {s}")
        note = measurement_note(p, dataset)
        if note:
            lines.append(f"  How it is measured here: {note}")
        guide = guidance_for(p.normal_range, p.measurement) if sg.method != "base" and guidance_fits(p, dataset) else ""
        if guide:
            lines.append(f"  General guidance: {guide}")
    lines += related_lines(sg, analysis, found)
    recs = [(p, guidance_for(p.recommendations, p.measurement)) for p in sg.primaries] \
        if sg.method != "base" else []
    recs = [r for r in recs if r[1]]
    if recs:
        lines.append("")
        lines.append("What may help:")
        for _p, text in recs:
            lines.append(f"* {text}")
    lines.append("")
    lines.append(DISCLAIMER)
    return Answer(text="\n".join(lines), source="offline")


def related_lines(sg: Subgraph, analysis: dict, found: dict) -> list[str]:
    """The related metrics (DESIGN.md §11): a block for each neighbour with a finding — it moved, it may
    explain the change, or it moved the other way — and one line each for the ones that did not change,
    have no data, or measure the same thing as the asked metric (folded). The general "why it matters"
    sentence of the graph shows only when the person's own data hold no valid correlation for the pair;
    otherwise the person's own direction is stated."""
    from dataclasses import replace

    from .verdict import finding_sentence, leading, own_direction

    unit = analysis.get("display_unit")
    shown_with_primary = {c.metric_id for c in map(_shown_companion, sg.primaries) if c is not None}
    names = {p.metric_id: p.name for p in sg.primaries}
    blocks, unchanged, no_data, same, too_few = [], [], [], [], []
    seen: set[str] = set()
    for n in sg.neighbours:                     # a neighbour of two primaries is described once
        if n.metric_id in seen:
            continue
        seen.add(n.metric_id)
        g = found.get((n.primary_node, n.metric_id))
        kind = g.finding if g is not None else ("no_data" if not n.data.n_window_days else "unchanged")
        if kind == "no_data":
            no_data.append(n.name)
        elif kind == "same_construct":
            same.append(n.name)          # measures the same thing as the asked metric: not repeated
        elif kind == "too_few":
            too_few.append(n.name)
        elif kind in ("explains", "opposite", "moved"):
            # the verdict speaks of the leading node (time asleep beside time in bed): when that did not
            # change, a neighbour neither explains nor contradicts a change — it just moved
            _lead, flead = leading(next(p for p in sg.primaries if p.metric_id == n.primary_node), found)
            if kind != "moved" and flead is not None and (flead.d is None or abs(flead.d) < 0.2):
                g = replace(g, finding="moved")
            blocks.append((n, g))
        else:
            unchanged.append(n.name)
    out: list[str] = []
    if blocks:
        out.append("")
        out.append("Related metrics that changed:" if sg.method != "full" else "Your other metrics that changed:")
        for n, g in blocks:
            # one line each: the change with its numbers, then what it means in the person's own data
            line = f"* {n.name}: {finding_sentence(n, g, names.get(n.primary_node, n.primary_node))}"
            if g is not None and g.period_mean is not None and g.baseline_mean is not None \
                    and n.metric_id not in shown_with_primary:
                du = display_unit_for(unit, n.unit, g.period_mean)
                nums = f"{fmt(g.period_mean, n.unit, du)}, usually {fmt(g.baseline_mean, n.unit, du)}"
                line = line.replace(" SD)", f" SD: {nums})", 1)
            own = own_direction(n, names.get(n.primary_node, n.primary_node))
            out.append(line + (f" {own}" if own else ""))
            note = measurement_note(n, sg.subject_id.split(":", 1)[0])
            if note and n.data.n_history_days:     # a bare score needs its instrument and scale
                out.append(f"  How it is measured here: {note}")
    if unchanged or no_data or too_few:
        out.append("")
    if unchanged:
        out.append("Other related metrics were at their usual level: " + ", ".join(_lc(x) for x in unchanged) + ".")
    if too_few:
        out.append("Too few days in this period to say: " + ", ".join(_lc(x) for x in too_few) + ".")
    if no_data:
        out.append("Not recorded in this period: " + ", ".join(_lc(x) for x in no_data) + ".")
    return out
