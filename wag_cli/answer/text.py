"""The parts every answer is made of: the :class:`Answer`, the period phrase, a metric's window
against its usual level and its daily values in words (DESIGN.md §11)."""

from __future__ import annotations

from dataclasses import dataclass

from ..retrieve import Node, Subgraph
from .wording import ADDITIVE_UNITS, NOT_ADDITIVE, _lc, display_unit_for, fmt, is_clock_unit


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
    prompt_tokens: int | None = None   # estimated size of the model prompt (wag_cli.answer.context)
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
            last = f"; the last entry is from {d.last_day.isoformat()} (ask about a period ending then to see it)" \
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
        last = f"; the last value is from {d.last_day.isoformat()} (ask about a period ending then to see it)" \
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
                       f"(average {fmt(d.window_mean, node.unit, u)} per day, {extremes}{_partial_note(node, analysis)}).")
        else:
            out.append(f"{name}: average {fmt(d.window_mean, node.unit, u)} over {d.n_window_days}{span} "
                       f"{days_word} with data ({extremes}{_partial_note(node, analysis)}).")
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


def _partial_note(node: Node, analysis: dict | None) -> str:
    """'; this average includes the partial day 2020-06-19' when the verdict's mean (findings, DESIGN.md
    §11) leaves partial days out and this all-days mean keeps them (readers saw two averages of one
    week without a reason)."""
    days = sorted({str(x["day"]) for f in (analysis or {}).get("findings") or []
                   if f.get("metric_id") == node.metric_id for x in f.get("partial_days") or []})
    if not days:
        return ""
    return f"; this average includes the partial day{'s' if len(days) > 1 else ''} {', '.join(days)}"


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
