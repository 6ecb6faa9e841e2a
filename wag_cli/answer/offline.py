"""The offline answer (deterministic, no model): the verdict first, then each asked metric, the
related metrics that changed and the guidance (DESIGN.md §11)."""

from __future__ import annotations

import re

from ..retrieve import Node, Subgraph
from .wording import _lc, display_unit_for, fmt, guidance_fits, guidance_for, label, measurement_note
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
            lines.append(f"* {label(comp.metric_id, comp.name)}")    # no metric ids: text for people
            for s in describe_node_data(comp, sg, display_unit=unit, name=label(comp.metric_id, comp.name),
                                        analysis=analysis):
                lines.append(f"  {s}")
        lines.append(f"* {label(p.metric_id, p.name) if comp is not None else p.name}")
        for s in describe_node_data(p, sg, display_unit=unit, analysis=analysis,
                                    name=label(p.metric_id, p.name) if comp is not None else None):
            lines.append(f"  {s}")
        note = measurement_note(p, dataset)
        if note:
            lines.append(f"  How it is measured here: {note}")
        guide = guidance_for(p.normal_range, p.measurement) if sg.method != "base" and guidance_fits(p, dataset) else ""
        if guide:
            lines.append(f"  General guidance: {guide}")
    # a question about one pair: the pair is the answer; "what is HRV?": the definition is (readers
    # ranked the related metrics beside a definition as clutter)
    if intent != "relationship" and not analysis.get("asks_definition"):
        lines += related_lines(sg, analysis, found)
    recs = [(p, guidance_for(p.recommendations, p.measurement)) for p in sg.primaries] \
        if sg.method != "base" else []
    recs = [r for r in recs if r[1]]
    lever = lever_line(sg, found) if analysis.get("category") == "Actionable Advice" and sg.primaries else None
    if recs or lever:
        lines.append("")
        lines.append("What may help:")
        if lever:
            lines.append(f"* {lever}")
        for _p, text in recs:
            lines.append(f"* {text}")
    lines.append("")
    glossary = glossary_line("\n".join(lines))
    if glossary:
        lines += [glossary, ""]
    lines.append(DISCLAIMER)
    return Answer(text="\n".join(lines), source="offline")


def glossary_line(text: str) -> str | None:
    """'How to read the numbers: SD = ...; rho = ...' for the statistics ``text`` uses (words in
    data/answer_text.toml ``[glossary]``), None when it uses neither."""
    from .wording import answer_words

    words = answer_words().get("glossary", {})
    used = [words[k] for k, pat in (("sd", r"\bSD\b"), ("rho", r"\brho\b")) if k in words and re.search(pat, text)]
    return "How to read the numbers: " + "; ".join(used) + "." if used else None


def related_lines(sg: Subgraph, analysis: dict, found: dict) -> list[str]:
    """The related metrics (DESIGN.md §11): a block for each neighbour with a finding — it moved, it may
    explain the change, or it moved the other way — and one line each for the ones that did not change,
    have no data, or measure the same thing as the asked metric (folded). The general "why it matters"
    sentence of the graph shows only when the person's own data hold no valid correlation for the pair;
    otherwise the person's own direction is stated."""
    from dataclasses import replace

    from .verdict import finding_sentence, leading, own_direction

    unit = analysis.get("display_unit")
    verdict_text = " ".join(analysis.get("verdict") or [])
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
    # a bullet per neighbour with a finding (readers ranked labelled bullets with the usual level clearer
    # than the same facts as one paragraph), nothing the verdict already said, no filler lines
    out: list[str] = []
    for n, g in blocks:
        primary = names.get(n.primary_node, n.primary_node)
        if re.search(re.escape(_lc(n.name)) + r" was (higher|lower|later|earlier) than usual", verdict_text, re.I):
            continue                             # the verdict already said how it moved
        line = f"* {n.name}: {finding_sentence(n, g, primary)}"
        if g.period_mean is not None and g.baseline_mean is not None and n.metric_id not in shown_with_primary:
            du = display_unit_for(unit, n.unit, g.period_mean)
            nums = f"{fmt(g.period_mean, n.unit, du)}, usually {fmt(g.baseline_mean, n.unit, du)}"
            line = line.replace(" SD)", f" SD: {nums})", 1)
        own = own_direction(n, primary)
        rho = re.search(r"rho [+-]?\d\.\d\d over \d+ days", own or "")
        if rho and rho.group(0) in verdict_text:
            own = None                           # the verdict already states this link of the person's data
        out.append(line + (f" {own}" if own else ""))
        note = measurement_note(n, sg.subject_id.split(":", 1)[0])
        if note and n.data.n_history_days:       # a bare score needs its instrument and scale
            out.append(f"  How it is measured here: {note}")
    if out:
        out.insert(0, "Related metrics that changed:" if sg.method != "full" else "Your other metrics that changed:")
        out.insert(0, "")
    # a metric the verdict named (unusual on one of the days) is not then called usual for the period
    unchanged = [x for x in unchanged if _lc(x) not in verdict_text.lower()]
    if unchanged:
        out += ["", "Other related metrics were at their usual level over the period: "
                + ", ".join(_lc(x) for x in unchanged) + "."]
    # related metrics without data or with too few days in the period are not listed: readers of two
    # blind rounds called "Not recorded: ..." / "Too few days to say: ..." filler (they stay in the
    # analysis and the subgraph table)
    return out


def lever_line(sg: Subgraph, found: dict) -> str | None:
    """Advice tied to the person (DESIGN.md §11 Advice): the strongest own lever of the first asked
    metric (:func:`wag_cli.answer.verdict.levers`) and where it stands in this period against the
    person's usual level, e.g. 'In your own data your deep sleep moves most with your time asleep: this
    period 5 h 07 min against your usual 6 h 08 min.' None without a lever."""
    from .verdict import levers

    primary = sg.primaries[0]
    top = levers(sg, primary)
    if not top:
        return None
    n = top[0]
    # "moves most with", not "lever": the link is a correlation over days, and some are partly built into
    # a score (an epidemiologist reader of round 8)
    text = (f"In your own data your {_lc(label(primary.metric_id, primary.name))} moves most with your "
            f"{_lc(label(n.metric_id, n.name))}")
    g = found.get((primary.metric_id, n.metric_id))
    if g is not None and g.period_mean is not None and g.baseline_mean is not None:
        du = display_unit_for(None, n.unit, g.period_mean)
        text += f": this period {fmt(g.period_mean, n.unit, du)} against your usual {fmt(g.baseline_mean, n.unit, du)}"
    return text + "."
