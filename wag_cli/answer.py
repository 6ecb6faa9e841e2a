"""Answering a question from a retrieved subgraph (DESIGN.md §8; the paper's answer step).

An answer answers the question asked. What it must contain is one definition, the **analysis**
(a JSON-ready dict that :func:`wag_cli.ask.question_analysis` builds from SQL results): the
offline answerer renders it, and the model gets the same dict in its data block (``"analysis"``,
described in ``prompts``). Its keys:

* ``intent`` — ``lookup`` | ``relationship`` | ``influences`` | ``trend`` | ``comparison`` |
  ``overview`` (``wag_cli.parse.question_shape``);
* ``period`` — the period used (``Period.to_json``: label, start, end, days), stated in the answer;
* ``display_unit`` — the unit the question asks in ("hours") or None;
* ``relationships`` — per pair of asked metrics: ``{x, y, x_name, y_name, has_edge, relationship,
  individual: {rho, n, strength, direction, reason}, population: {rho, n, n_subjects, strength,
  direction, reason, as_of (the pooled days' last day: the monthly snapshot <= t)}, as_of}`` (as-of correlations of §5-§6; ``rho`` None with a ``reason``);
* ``influences`` — ``{metric, name, as_of, neighbours: [{metric_id, name, w_global, individual,
  population, relationship}]}``: X's candidates ranked by the as-of W_global;
* ``trends`` — per metric: Theil-Sen ``slope_per_week`` with ``low_per_week``/``high_per_week``
  (95 %), ``direction`` (up/down/flat), ``n_days``, first vs second half means and days;
* ``comparison`` — ``{kind, a, b, metrics: [{metric_id, name, unit, a_days, a_mean, ..., difference}]}``
  with ``difference = a_mean - b_mean``;
* ``overview`` — the most abnormal metrics of the window across categories ``[{metric_id, category,
  zeta, n_window_days}]``;
* ``notes`` — sentences on what could not be computed (a text metric in a relationship question).
* ``period_notes`` — how the period was read when the rules could not (DESIGN.md §11: a time expression
  not understood, or the model's reading of it); a model's answer opens with them too.

Offline (default, deterministic): the analysis first, then each primary metric's window against the
person's level before the window, the related metrics and the catalog's guidance — only the parts
of the guidance that fit the instrument of the subject's dataset (:func:`guidance_for`). Sleep leads
with actual sleep; time in bed is named as such.

With a model: the method's prompt (``prompts.answer_prompt``) and, as the fenced data block, the
compact tables of :mod:`wag_cli.context` (question, period, analysis, metrics with the same guidance
filtering, edges, daily or weekly rows) within a token budget, through :class:`wag_cli.llm.LLMClient`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .retrieve import Node, Subgraph
from .wording import (ADDITIVE_UNITS, NOT_ADDITIVE, _lc, answer_words, guidance_fits, measurement_note, display_unit_for, fmt, fmt_delta, guidance_for,  # noqa: F401
                      is_clock_unit, label, reason_text, strength_word)

# |window mean - level before the window| / its sd below this is "about your usual level"
#: |difference| in SDs below which two levels are "about the same", and below which a difference is
#: "slight" (Cohen's conventions for small and medium effects); comparisons and "your usual level".
SAME_EFFECT, SLIGHT_EFFECT = 0.2, 0.5
DISCLAIMER = "This summary describes your recorded data; it is not a diagnosis or medical advice."


@dataclass
class Answer:
    """An answer and where it came from ('offline' or 'model:<name>'); ``note`` explains a fallback."""

    text: str
    source: str
    note: str | None = None
    prompt_tokens: int | None = None   # estimated size of the model prompt (wag_cli.context)
    trimmed: list[str] | None = None   # what the prompt left out to fit its budget
    cached: bool = False               # the model reply came from the reply cache


def window_phrase(sg: Subgraph, analysis: dict | None = None) -> str:
    """The period in words: the resolved period when the analysis has one, else the window."""
    per = (analysis or {}).get("period")
    if per and per.get("start") and per["start"] != per["end"]:
        return f"{per['start']} to {per['end']} ({per['days']} days)"
    if per and per.get("start"):
        return per["end"]
    if sg.window_days is None:
        return f"all days up to {sg.reference_day.isoformat()}"
    if sg.window_days == 1:
        return f"{sg.reference_day.isoformat()}"
    return f"the {sg.window_days} days ending {sg.reference_day.isoformat()}"


def baseline_of(node: Node) -> tuple[float | None, float | None, int, str]:
    """``(mean, sd, days, words)`` of the level a window is compared with: the subject's days before
    the window (``baseline_*`` of wag_node_window) when there are at least 2, else every day up to
    the reference day (``usual_*``, window 'all')."""
    d = node.data
    n_b = int(getattr(d, "n_baseline_days", 0) or 0)
    if n_b >= 2 and getattr(d, "baseline_mean", None) is not None:
        return d.baseline_mean, d.baseline_sd, n_b, "before this period"
    return d.usual_mean, d.usual_sd, d.n_history_days, "up to the reference day"


def compare_to_usual(node: Node) -> str | None:
    """'above/below/about your usual level' of the window mean against :func:`baseline_of`."""
    d = node.data
    mean, sd, _n, words = baseline_of(node)
    if d.window_mean is None or mean is None:
        return None
    # both deviations are computed by wag_node_window (SQL), against the baseline baseline_of chose
    dev = d.window_dev_sd if words == "up to the reference day" else d.baseline_dev_sd
    # the same cut-offs as the comparisons' verdicts (SAME_EFFECT, SLIGHT_EFFECT), so that one answer
    # never calls a period "slightly higher" in one line and "about usual" in the next (a user review)
    if dev is None or abs(dev) < SAME_EFFECT:
        return "about your usual level"
    slight = "slightly " if abs(dev) < SLIGHT_EFFECT else ""
    return f"{slight}{'above' if dev > 0 else 'below'} your usual level ({dev:+.1f} SD)"


def _asks_total(node: Node, sg: Subgraph, analysis: dict | None) -> bool:
    """Whether a line leads with the period total: the question asks "how many / how much" (analysis
    ``asks_total``), the node is one it asks about (a primary), its unit is a daily amount
    (:data:`ADDITIVE_UNITS`, minus offsets such as the sleep midpoint) and the window is a period."""
    return bool((analysis or {}).get("asks_total")) and node.role == "primary" \
        and node.unit in ADDITIVE_UNITS and node.metric_id not in NOT_ADDITIVE and sg.window_days is not None


def _label_counts(entries: list[str], max_labels: int = 12) -> list[tuple[str, int]]:
    """``[(label, days)]``, most frequent first, when the entries are lists of short labels
    ("TENSE/ANXIOUS, TIRED", a user review asked for counts over a month of mood check-ins); empty for
    free text (more than ``max_labels`` distinct labels, or a label longer than 30 characters)."""
    per_day = [{lab.strip() for lab in e.split(",") if lab.strip()} for e in entries]
    labels = {lab for day in per_day for lab in day}
    if not labels or len(labels) > max_labels or any(len(lab) > 30 for lab in labels):
        return []
    counts = {lab: sum(lab in day for day in per_day) for lab in labels}
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def describe_node_data(node: Node, sg: Subgraph, *, max_days: int = 3, display_unit: str | None = None,
                       name: str | None = None, analysis: dict | None = None) -> list[str]:
    """Sentences about a node's data in the window (numbers from the warehouse, nothing invented)."""
    d = node.data
    name = name or node.name
    u = display_unit_for(display_unit, node.unit, d.window_mean if d.window_mean is not None else d.usual_mean)
    period = window_phrase(sg, analysis)
    if node.category == "Demographic" and d.daily:
        last = d.daily[-1]
        shown = last.get("value_text") or fmt(last.get("value"), node.unit)
        return [f"{name}: {shown} (profile)."]
    numeric_values = [r for r in d.daily if r.get("value") is not None]
    if node.data_kind != "text" and d.n_window_days and d.window_mean is None and numeric_values:
        # too few days for a summary (coverage below min_window_coverage): show the days themselves
        shown = "; ".join(f"{r['day']}: {fmt(r['value'], node.unit, u)}" for r in numeric_values[-5:])
        cov = f", {d.window_coverage:.0%} of the days you usually record" if d.window_coverage is not None else ""
        total = ""
        if _asks_total(node, sg, analysis):
            total = f" (total of those days {fmt(sum(r['value'] for r in numeric_values), node.unit, u)})"
        return [f"{name}: only {len(numeric_values)} day{'' if len(numeric_values) == 1 else 's'} with data in "
                f"{period}{cov} — too few for an average: {shown}{total}."]
    texts = [f"{r['day']}: {r['value_text']}" for r in d.daily if r.get("value_text")]
    text_only = d.n_window_days == 0 and d.n_history_days == 0 and d.last_day is not None  # e.g. mood labels
    if node.data_kind == "text" or (d.n_window_days and d.window_mean is None) or (texts and not numeric_values) \
            or text_only:
        if not texts:
            last = f"; the last entry is from {d.last_day.isoformat()} (ask with --as-of {d.last_day.isoformat()})" \
                if d.last_day else ""
            return [f"No {_lc(name)} entries in {period}{last}."]
        shown = "; ".join(str(t) for t in texts[-5:])
        more = f" (the last 5 of {len(texts)} shown)" if len(texts) > 5 else ""
        out = [f"{len(texts)} {_lc(name)} entr{'y' if len(texts) == 1 else 'ies'} in {period}{more}: {shown}."]
        counts = _label_counts([r["value_text"] for r in d.daily if r.get("value_text")])
        if counts and len(texts) > 5:
            out.append(f"Labels over the {len(texts)} entries: "
                       + ", ".join(f"{lab} on {n} day{'' if n == 1 else 's'}" for lab, n in counts) + ".")
        return out
    if d.n_window_days == 0:
        if d.n_history_days == 0:
            return [f"You have no {_lc(name)} data recorded up to {sg.reference_day.isoformat()} "
                    "(your device or dataset may not measure it)."]
        last = f"; the last value is from {d.last_day.isoformat()} (ask with --as-of {d.last_day.isoformat()})" \
            if d.last_day else ""
        return [f"No {_lc(name)} data in {period}{last}. "
                f"Your usual level from {d.n_history_days} earlier day{'' if d.n_history_days == 1 else 's'}: "
                f"{fmt(d.usual_mean, node.unit, u)}."]
    out = []
    days_word = "day" if (sg.window_days or d.n_window_days) == 1 else "days"
    span = "" if sg.window_days is None else f" of {sg.window_days}"
    if d.n_window_days == 1:
        out.append(f"{name}: {fmt(d.window_mean, node.unit, u)} ({d.n_window_days}{span} {days_word} with data).")
    else:
        extremes = (f"lowest {fmt(d.window_min, node.unit, u)}{_tied_days(d, d.window_min, d.window_min_day)}, "
                    f"highest {fmt(d.window_max, node.unit, u)}{_tied_days(d, d.window_max, d.window_max_day)}")
        if _asks_total(node, sg, analysis):
            # "how many steps ..." is answered by the total first (a user review); mean x days with
            # data, both from wag_node_window
            out.append(f"{name}: total {fmt(d.window_mean * d.n_window_days, node.unit, u)} over "
                       f"{d.n_window_days}{span} {days_word} with data "
                       f"(average {fmt(d.window_mean, node.unit, u)} per day, {extremes}).")
        else:
            out.append(f"{name}: average {fmt(d.window_mean, node.unit, u)} over {d.n_window_days}{span} "
                       f"{days_word} with data ({extremes}).")
    mean, sd, n_base, base_words = baseline_of(node)
    constant = d.usual_sd is not None and d.usual_sd <= 1e-9 * max(1.0, abs(d.usual_mean or 0.0))
    if d.usual_mean is not None and d.n_history_days >= 2 and constant:
        out.append(f"It has been {fmt(d.usual_mean, node.unit, u)} on all {d.n_history_days} days recorded, "
                   "so it carries no information here (the device may not measure it).")
    elif sg.window_days is not None and hasattr(d, "n_baseline_days") and (d.n_baseline_days or 0) < 2:
        out.append(f"There {'is' if d.n_baseline_days == 1 else 'are'} {d.n_baseline_days or 'no'} earlier "
                   f"day{'' if d.n_baseline_days == 1 else 's'} with data to compare this period with.")
    elif mean is not None and n_base >= 2 and sg.window_days is not None and (analysis or {}).get("findings") is not None \
            and node.role == "primary":
        pass                     # the verdict states this period against the usual level (DESIGN.md §11)
    elif mean is not None and n_base >= 2 and sg.window_days is not None:
        sd_unit = "min" if is_clock_unit(node.unit) else node.unit
        sd_txt = f" ± {fmt(sd, sd_unit, u)}" if sd else ""
        out.append(f"Your usual level {base_words} is {fmt(mean, node.unit, u)}{sd_txt} ({n_base} days); "
                   f"this period is {compare_to_usual(node)}.")
    elif d.usual_mean is not None and d.n_history_days >= 2:
        sd_unit = "min" if is_clock_unit(node.unit) else node.unit
        sd_txt = f" ± {fmt(d.usual_sd, sd_unit, u)}" if d.usual_sd else ""
        out.append(f"Over all {d.n_history_days} days up to {sg.reference_day.isoformat()}: "
                   f"{fmt(d.usual_mean, node.unit, u)}{sd_txt}.")
    rows = (analysis or {}).get("findings")
    if rows is not None:
        # one baseline in the whole answer (DESIGN.md §11): unusual = 2 SD or more from the level before
        # the period (sql/findings.sql), partial days left out; a primary's are in the verdict already
        f = next((r for r in rows if r["metric_id"] == node.metric_id and r["primary_node"] == node.primary_node), None)
        days = (f or {}).get("unusual_days") or []
        if days and node.role != "primary":
            parts = [f"{x['day']} ({fmt(x['value'], node.unit, u)}, {x['z']:+.1f} SD)" for x in days[:max_days + 3]]
            out.append("Unusual days (2 SD or more from your usual before this period): " + ", ".join(parts) + ".")
        return out
    notable = sorted((r for r in d.daily if r.get("z") is not None and r.get("value") is not None),
                     key=lambda r: (-r["z"], str(r["day"])))[:max_days]
    notable = [r for r in notable if r["z"] >= 1.0]
    if notable:
        # z of wag_node_window: against the mean and SD of every day up to the reference day, which
        # may differ from the "before this period" level above; say which
        parts = [f"{r['day']} ({fmt(r['value'], node.unit, u)}, {r['z']:.1f} SD)" for r in notable]
        out.append(f"Most unusual days (SD from your mean over all days up to {sg.reference_day.isoformat()}): "
                   + ", ".join(parts) + ".")
    return out


# --------------------------------------------------------------------------- question-shaped parts


def _tied_days(d, value, first_day) -> str:
    """' on DAY' for a window extreme, or every tied day (DESIGN.md §11: all tied extreme days are
    named): ' on 2 days (2020-03-02, 2020-03-05)', ' on 9 days (2020-03-02 … 2020-03-30)' beyond 5."""
    days = sorted(r["day"] for r in d.daily if r.get("value") is not None and value is not None
                  and r["value"] == value)
    if len(days) <= 1:
        return _on(first_day)
    txt = ", ".join(str(x) for x in days) if len(days) <= 5 else f"{days[0]} … {days[-1]}"
    return f" on {len(days)} days ({txt})"


def _on(day) -> str:
    """' on YYYY-MM-DD' for the day of a window extreme, '' when unknown."""
    return f" on {day.isoformat()}" if day is not None else ""


#: Who the population correlation is over: every subject of the dataset pooled, the asker included
#: (a user review read "Others in the dataset" as the other people only).
POPULATION_WHO = "Everyone in the dataset"


def _corr_words(c: dict, x_name: str, y_name: str, who: str) -> str:
    if c.get("rho") is None:
        return f"{who}: no correlation ({c.get('reason')})."
    direction = "positive" if c["rho"] > 0 else "negative" if c["rho"] < 0 else "none"
    if who == POPULATION_WHO and c.get("reference"):
        # §6 "Small cohorts": too few people here, so the population evidence is the other datasets'
        return (f"Other datasets ({c['reference']}; too few people in yours for a population figure): "
                f"combined Spearman rho {c['rho']:+.2f} over {c['n']} subject-days of {c.get('n_subjects') or '?'} "
                f"people ({c['strength']}, {direction}).")
    # the population stage pools every subject of the dataset, this one included (DESIGN.md §5)
    n_words = f"{c['n']} days with both" if who != POPULATION_WHO else \
        f"{c['n']} subject-days of {c.get('n_subjects') or '?'} people (you included)" + \
        (f" up to {c['as_of']}" if c.get("as_of") else "")
    sense = ""
    if c["strength"] != "negligible" and direction != "none" and who == POPULATION_WHO:
        # pooled ranks mix differences between people with day-to-day changes within them
        sense = (f": across these subject-days, more {_lc(x_name)} went with "
                 f"{'higher' if c['rho'] > 0 else 'lower'} {_lc(y_name)}")
    elif c["strength"] != "negligible" and direction != "none":
        sense = (f": on days with more {_lc(x_name)}, {_lc(y_name)} tended to be "
                 f"{'higher' if c['rho'] > 0 else 'lower'}")
    return f"{who}: Spearman rho {c['rho']:+.2f} over {n_words} ({c['strength']}, {direction}{sense})."


def render_relationships(rels: list[dict]) -> list[str]:
    """Lines for the ``relationships`` part of the analysis."""
    out = []
    for r in rels:
        out.append(f"* {r['x_name']} and {r['y_name']} (as of {r['as_of']}):")
        if not r["has_edge"]:
            out.append(f"  {reason_text('no_edge', x=_lc(r['x_name']), y=_lc(r['y_name']))[:1].upper()}"
                       f"{reason_text('no_edge', x=_lc(r['x_name']), y=_lc(r['y_name']))[1:]}.")
            continue
        if r.get("period"):
            out.append("  " + _corr_words(r["period"], r["x_name"], r["y_name"], f"In {r['period']['label']}"))
        if r.get("next_night"):
            # activity then the night after it (DESIGN.md §11) replaces the same-day pairing
            ind = r["individual"]
            same = (f" (paired with the night before it instead: rho {ind['rho']:+.2f} over {ind['n']} days)"
                    if ind.get("rho") is not None else "")
            out.append("  " + _corr_words(r["next_night"], r["x_name"], r["y_name"],
                                          "Your own data, each day with the night after it").rstrip(".") + same + ".")
        else:
            out.append("  " + _corr_words(r["individual"], r["x_name"], r["y_name"],
                                          "All your days up to then" if r.get("period") else "Your own data"))
        out.append("  " + _corr_words(r["population"], r["x_name"], r["y_name"], POPULATION_WHO))
        if r["population"].get("pooled_sources"):
            out.append(f"  The pooled sample combines several source fields of this dataset, each with its own scale: "
                       f"{r['population']['pooled_sources']}; read the population figure with care.")
        if r.get("pairing_note"):
            out.append(f"  Pairing: {r['pairing_note']}.")
        if r.get("relationship"):
            out.append(f"  Background: {r['relationship']}")
    if out:
        out.append("  Correlations are associations over days, not proof that one causes the other.")
    return out


def render_influences(inf: dict) -> list[str]:
    neigh = inf["neighbours"]
    if neigh and all(n.get("fallback") == "prior" for n in neigh):
        # W_global = the prior when the population stage has no valid correlation (DESIGN.md §6), so
        # the ranking does not yet reflect this person's data: say so, and show their correlations
        reasons = {n["population"].get("reason") for n in neigh if n["population"].get("rho") is None} - {None}
        why = (" (too few people in this dataset for population correlations)"
               if reasons == {"too_few_subjects"} else " (no valid population correlation)")
        out = [f"What goes with your {_lc(inf['name'])} most, by prior knowledge only{why}: the graph weights "
               f"cannot use your own data without the population stage, so read your own correlations "
               f"below (days up to {inf['as_of']}):"]
    else:
        out = [f"What goes with your {_lc(inf['name'])} most (graph weight W_global from your data up to {inf['as_of']}):"]
    if not neigh:
        out.append("* No related metric has data with variation for you up to that day.")
    for k, n in enumerate(inf["neighbours"], 1):
        ind, pop = n["individual"], n["population"]
        if ind.get("rho") is not None:
            few = "; only a few days, so treat it with caution" if ind["n"] < 30 else ""
            ev = f"your rho {ind['rho']:+.2f} over {ind['n']} days ({ind['strength']}{few})"
        else:
            ev = f"no personal correlation ({ind.get('reason')})"
        if pop.get("rho") is not None and pop.get("reference"):
            ev += f"; other datasets ({pop['reference']}) rho {pop['rho']:+.2f} over {pop['n']} subject-days"
        elif pop.get("rho") is not None:
            ev += f"; everyone in the dataset (you included) rho {pop['rho']:+.2f} over {pop['n']} subject-days"
            if pop.get("as_of"):
                ev += f" up to {pop['as_of']}"
        out.append(f"{k}. {n['name']} — weight {n['w_global']:.2f}; {ev}.")
    own = inf.get("own") or []
    if own:
        # the person's strongest correlations with X, whatever the graph weights rank first
        out.append(f"Strongest in your own data (Spearman rho over your days up to {inf['as_of']}): " + "; ".join(
            f"{o['name']} {o['rho']:+.2f} over {o['n']} days ({o['strength']})" for o in own) + ".")
    return out


def render_trends(trends: list[dict], display_unit: str | None) -> list[str]:
    out = []
    for t in trends:
        u = t.get("unit", "")
        dunit = display_unit_for(display_unit, u, t.get("first_half_mean") or t.get("second_half_mean"))
        if t["n_days"] < 3 or t.get("slope_per_week") is None:
            n = t["n_days"]
            out.append(f"* {t['name']}: no data in the period, so no trend." if n == 0 else
                       f"* {t['name']}: only {n} day{'' if n == 1 else 's'} with data in the period, too few for a trend.")
            continue
        verdict = {"up": "rising (the whole interval is above zero)", "down": "falling (the whole interval is below zero)",
                   "flat": "not distinguishable from flat (the interval includes zero)"}[t["direction"] or "flat"]
        out.append(f"* {t['name']}: Theil–Sen trend {fmt_delta(t['slope_per_week'], u, dunit)} per week "
                   f"over {t['n_days']} days with data (95% interval {fmt_delta(t['low_per_week'], u, dunit)} "
                   f"to {fmt_delta(t['high_per_week'], u, dunit)} per week) — {verdict}.")
        if t.get("first_half_days") and t.get("second_half_days"):
            out.append(f"  First half (to {t['first_half_end']}): average {fmt(t['first_half_mean'], u, dunit)} "
                       f"over {t['first_half_days']} days; second half (from {t['second_half_start']}): "
                       f"{fmt(t['second_half_mean'], u, dunit)} over {t['second_half_days']} days.")
    return out


def _period_words(p: dict) -> str:
    label_ = p.get("label") or ""
    if p.get("start") is None:
        span = f"all days up to {p['end']}"
    elif p["start"] == p["end"]:
        span = p["end"]
    else:
        span = f"{p['start']} to {p['end']}"
    days = {(6, 7): ", weekend days", (1, 2, 3, 4, 5): ", weekdays"}.get(tuple(p.get("iso_days") or ()), "")
    return f"{label_} ({span}{days})" if label_ and label_ not in span else f"{span}{days}"


def render_comparison(cmp_: dict, display_unit: str | None) -> list[str]:
    a, b = cmp_["a"], cmp_["b"]
    if cmp_["kind"] == "weekday_split":
        span = _period_words({**a, "label": "", "iso_days": None})
        out = [f"{a['label'][:1].upper()}{a['label'][1:]} vs {b['label']} ({span}):"]
    else:
        out = [f"{_period_words(a)[:1].upper()}{_period_words(a)[1:]} vs {_period_words(b)}:"]
    for m in cmp_["metrics"]:
        u = m.get("unit", "")
        dunit = display_unit_for(display_unit, u, m["a_mean"] if m.get("a_mean") is not None else m.get("b_mean"))
        if not m["a_days"] and not m["b_days"]:
            out.append(f"* {m['name']}: no data in either period.")
            continue
        sa = f"{fmt(m['a_mean'], u, dunit)} over {m['a_days']} days" if m["a_days"] else "no data"
        sb = f"{fmt(m['b_mean'], u, dunit)} over {m['b_days']} days" if m["b_days"] else "no data"
        if m.get("difference") is None:
            diff = ""
        elif cmp_["kind"] == "before_after":
            # a = before D, b = from D: the change is what came after minus what came before
            diff = f"; change after {b['start']}: {fmt_delta(-m['difference'], u, dunit)}"
        else:
            diff = (f"; difference ({a.get('label') or 'first'} minus {b.get('label') or 'second'}) "
                    f"{fmt_delta(m['difference'], u, dunit)}")
        out.append(f"* {m['name']}: {a.get('label') or 'first'} {sa} vs {b.get('label') or 'second'} {sb}{diff}"
                   f"{_effect_words(m, a, b, cmp_['kind'])}.")
    return out




def _effect_words(m: dict, a: dict, b: dict, kind: str) -> str:
    """'; about the same / slightly higher / lower ...' from compare.sql's effect_size (Cohen's d: the
    difference in the periods' pooled day-to-day SD), naming the later period for before/after."""
    d = m.get("effect_size")
    if d is None:
        return ""
    if kind == "before_after":          # a = before D, b = from D: say how the later period compares
        d, first, second = -d, b.get("label") or "after", a.get("label") or "before"
    else:
        first, second = a.get("label") or "the first period", b.get("label") or "the second"
    if abs(d) < SAME_EFFECT:
        verdict = "about the same"
    else:
        verdict = ("slightly " if abs(d) < SLIGHT_EFFECT else "") + ("higher" if d > 0 else "lower")
    words = f"{first}: {verdict} than {second}" if verdict != "about the same" else "about the same"
    return f" — {words} (the difference is {abs(d):.2f} of your day-to-day SD)"


def render_overview(items: list[dict], names: dict[str, str], nodes: dict[str, Node] | None = None) -> list[str]:
    """Lines of the overview: each metric's zeta and, where its node is in the subgraph, which way the
    period's mean lies from the usual level (:func:`compare_to_usual`; zeta has no sign)."""
    out = ["Your most unusual metrics in this period, across categories (average distance from your usual "
           "level in standard deviations, zeta):"]
    for it in items:
        node = (nodes or {}).get(it["metric_id"])
        way = compare_to_usual(node) if node is not None else None
        out.append(f"* {names.get(it['metric_id'], it['metric_id'])} ({it['category']}): zeta {it['zeta']:.2f} "
                   f"over {it['n_window_days']} day{'' if it['n_window_days'] == 1 else 's'} with data"
                   + (f"; the period's average is {way}" if way else "") + ".")
    return out


def _shown_companion(p: Node) -> Node | None:
    """The companion described first beside primary ``p`` (time asleep beside time in bed), when it has
    any data up to the reference day: with none in the window it still leads, saying so, so that time
    in bed is never the first "sleep" figure (a user review: a day without a record led with 9.2 h
    in bed labelled as total sleep)."""
    c = p.companion
    return c if c is not None and (c.data.n_window_days or c.data.n_history_days) else None


def offline_answer(question: str, sg: Subgraph, analysis: dict | None = None) -> Answer:
    """Deterministic answer built from the subgraph and the question's analysis (no model).

    ``analysis``: the dict of :func:`wag_cli.ask.question_analysis` (module docstring); without it
    the answer describes the subgraph only.
    """
    from .answer_verdict import verdict_lines
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

    from .answer_verdict import finding_sentence, leading, own_direction

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


def model_data(question: str, sg: Subgraph, analysis: dict | None = None, *, budget: int | None = None,
               cap: int | None = None, full: Subgraph | None = None):
    """The answer prompt of ``sg`` as :class:`wag_cli.context.Context` (compact tables within
    ``budget`` tokens, default :data:`wag_cli.context.DEFAULT_BUDGET`, and within ``cap``): the
    question, the period, the analysis (module docstring), the metrics with the guidance filtered to
    the subject's instruments (:func:`guidance_for`, as offline), edges for WAG, daily/weekly rows.
    ``full`` (FullContext, :func:`wag_cli.context.full_context`) caps a WAG prompt at its size."""
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
    :func:`wag_cli.context.full_context`) caps a WAG prompt at FullContext's size. The answer ends
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
    from . import prompts

    return prompts.answer_prompt(method)
