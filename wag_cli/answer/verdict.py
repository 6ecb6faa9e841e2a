"""The finding first (DESIGN.md §11): the answer's opening sentences and its related-metrics section,
worded from the findings of ``sql/findings.sql`` (:mod:`wag_cli.answer.findings`) and the question's analysis.

* :func:`verdict_lines` — one or two sentences that answer the question in its own terms: the period,
  the amount, the direction against the usual level (the days before the period), and per intent the
  unusual days ("nothing unusual" when none), what may explain a change, where the usual level stands
  against the guidance, or the relationship / trend / comparison verdict.
* :func:`neighbour_section` — related metrics: a sentence for each one with a finding (it moved, it
  may explain the change, it moved the other way), one line for the others ("also checked, no
  notable change: …", "no data in this period: …"); a neighbour that measures the same thing as the
  asked metric is folded into one line. A general "why it matters" sentence appears only when the
  person's own data hold no valid correlation for the pair; otherwise the person's own direction is
  stated instead.
"""

from __future__ import annotations

import re

from .findings import OWN_LINK, Finding, direction_word, effect_word
from ..retrieve import Node, Subgraph
from .wording import ADDITIVE_UNITS, NOT_ADDITIVE, _lc, display_unit_for, fmt, is_clock_unit, label


def period_words(sg: Subgraph, analysis: dict | None) -> str:
    """'From 2020-03-25 to 2020-03-31 (past week)' / 'On 2020-03-31' / 'Over all your days up to …'."""
    per = (analysis or {}).get("period") or {}
    label = per.get("label")
    tail = f" ({label})" if label and not label[:1].isdigit() else ""
    if per.get("start") and per.get("end") and per["start"] != per["end"]:
        return f"From {per['start']} to {per['end']}{tail}"
    if per.get("end"):
        return f"On {per['end']}{tail}"
    if sg.window_days is None:
        return f"Over all your days up to {sg.reference_day.isoformat()}"
    if sg.window_days == 1:
        return f"On {sg.reference_day.isoformat()}"
    return f"Over the {sg.window_days} days ending {sg.reference_day.isoformat()}"


def _is_flag(node: Node) -> bool:
    """A 0/1 metric (a yes/no check-in): its mean is a share of days."""
    vals = [r.get("value") for r in node.data.daily if r.get("value") is not None]
    return bool(vals) and set(vals) <= {0.0, 1.0} and node.unit in ("score", "", "count")


def _amount(node: Node, f: Finding, unit: str | None, asks_total: bool, window_days: int | None) -> str:
    if _is_flag(node):
        return f"was reported on {f.period_mean:.0%} of the days with a check-in" if f.period_mean is not None else ""
    dunit = display_unit_for(unit, node.unit, f.period_mean)
    if f.n_mean_days == 1 or window_days == 1:
        return f"was {fmt(f.period_mean, node.unit, dunit)}"
    full = f" over the {f.n_mean_days} full days" if f.partial_days and f.n_mean_days and f.n_mean_days < f.n_window_days else ""
    if not full and window_days and f.n_mean_days and f.n_mean_days < window_days / 2:
        full = f" (only {f.n_mean_days} of the {window_days} days have data)"
    text = f"averaged {fmt(f.period_mean, node.unit, dunit)}{full}"
    if asks_total and node.unit in ADDITIVE_UNITS and node.metric_id not in NOT_ADDITIVE and f.n_mean_days:
        text = (f"came to {fmt(f.period_mean * f.n_mean_days, node.unit, dunit)} over {f.n_mean_days} days "
                f"({fmt(f.period_mean, node.unit, dunit)} a day on average)")
    return text


def _usual(node: Node, f: Finding, unit: str | None) -> str:
    if f.baseline_mean is None or f.n_baseline_days < 2:
        return "with no earlier days to compare with"
    dunit = display_unit_for(unit, node.unit, f.baseline_mean)
    if _is_flag(node):
        return f"{effect_word(f.d)} your usual {f.baseline_mean:.0%} (the {f.n_baseline_days} days before)"
    per_day = " a day" if node.unit in ("steps", "kcal", "calls", "unlocks", "m") else ""
    word = effect_word(f.d)
    if is_clock_unit(node.unit):        # a clock time is later or earlier, not above or below
        word = word.replace("above", "later than").replace("below", "earlier than")
    return (f"{word} your usual {fmt(f.baseline_mean, node.unit, dunit)}{per_day} "
            f"(the {f.n_baseline_days} days before{f', {f.d:+.1f} SD' if f.d is not None and abs(f.d) >= 0.2 else ''})")


def _unusual_words(node: Node, f: Finding, unit: str | None) -> str:
    dunit = display_unit_for(unit, node.unit, f.baseline_mean)
    gap = node.unit in ADDITIVE_UNITS
    days = [f"{u['day'].isoformat()} ({fmt(u['value'], node.unit, dunit)}, {u['z']:+.1f} SD"
            f"{'; possibly not recorded' if gap and u['value'] == 0 else ''})" for u in f.unusual_days]
    if len(days) > 6:
        days = days[:6] + [f"and {len(f.unusual_days) - 6} more"]
    return ", ".join(days)


def _primary_sentence(node: Node, f: Finding | None, sg: Subgraph, analysis: dict) -> str:
    unit = analysis.get("display_unit")
    name = _lc(label(node.metric_id, node.name))
    if f is None or not f.n_window_days:
        last = f" (the last is from {node.data.last_day.isoformat()})" if node.data.last_day else ""
        return f"you have no {name} data{last}"
    if node.data_kind == "text":
        days = f" of the {sg.window_days} days" if sg.window_days else " days"
        return f"you logged {name} entries on {f.n_window_days}{days if sg.window_days else ' days'}"
    if f.period_mean is None:
        return f"your {name} has no numeric values in this period"
    if node.data.daily and node.data.n_window_days and node.data.window_mean is None:
        # wag_node_window withholds the mean when the period has too few days for the subject's cadence
        vals = "; ".join(f"{r['day']}: {fmt(r['value'], node.unit, display_unit_for(unit, node.unit, r['value']))}"
                         for r in node.data.daily if r.get("value") is not None)
        return f"you have only {node.data.n_window_days} days of {name} data, too few for an average ({vals})"
    if is_clock_unit(node.unit) and f.baseline_sd is not None and f.baseline_sd > 180:
        # a clock time that is all over the day has no usual time (a circular SD over 3 hours)
        return (f"your {name} averaged {fmt(f.period_mean, node.unit)}, but your usual {name} varies too much "
                f"from day to day to compare with (by more than 3 hours)")
    return (f"your {name} {_amount(node, f, unit, bool(analysis.get('asks_total')), sg.window_days)}, "
            f"{_usual(node, f, unit)}")


def _explains(sg: Subgraph, findings: dict, primary: Node, asks_why: bool = False) -> str | None:
    """The exploratory sentence (DESIGN.md §11 "Why / what is going on")."""
    fx = findings.get((primary.metric_id, primary.metric_id))
    lead_node, flead = leading(primary, findings)
    if flead is not None and flead.d is not None and abs(flead.d) < 0.2:
        return None            # the verdict says "about the same": there is no change to explain
    neigh = [n for n in sg.neighbours if n.primary_node == primary.metric_id]
    got = [(n, findings.get((primary.metric_id, n.metric_id))) for n in neigh]
    name = _lc(primary.name)
    if fx is None or not fx.n_full_days:
        moved = [(n, g) for n, g in got if g and g.finding in ("moved", "explains", "opposite") and g.r is not None
                 and abs(g.r) >= OWN_LINK]
        if not moved:
            return None
        parts = [f"{_lc(n.name)} was {_moved(n, g.d)} than usual ({g.d:+.1f} SD), which in your data goes with "
                 f"{direction_word(g.d * g.r, 'higher', 'lower')} {name} (rho {g.r:+.2f} over {g.n} days)"
                 for n, g in moved]
        signs = {1 if g.d * g.r > 0 else -1 for _n, g in moved}
        so = ""
        if signs == {-1}:
            so = f" So these do not point to higher {name} than usual."
        elif signs == {1}:
            so = f" So these point to higher {name} than usual."
        return f"Of the metrics linked with your {name}: " + "; ".join(parts) + "." + so
    if fx.d is None or abs(fx.d) < 0.2:
        return None
    explaining = [(n, g) for n, g in got if g and g.finding == "explains"]
    if explaining:
        parts = [f"{_lc(n.name)} was {_moved(n, g.d)} than usual ({g.d:+.1f} SD), and in your data "
                 f"{_more(n, g.d > 0)} {_lc(n.name)} goes with {'more' if g.d * g.r > 0 else 'less'} {name}"
                 f" (rho {g.r:+.2f})" for n, g in explaining]
        return "What may help explain it: " + "; ".join(parts) + "."
    checked = [_lc(n.name) for n, g in got if g and g.finding not in ("no_data", "same_construct", "too_few")]
    if checked and asks_why:
        return ("None of the related metrics checked (" + ", ".join(checked) +
                ") moved in a way that explains the change.")
    return None


def leading(p: Node, findings: dict) -> tuple[Node, "Finding | None"]:
    """The node a primary's verdict is about and its finding: the companion (time asleep beside time
    in bed) when it has data in the period, else the primary itself."""
    comp = p.companion
    fc = findings.get((p.metric_id, comp.metric_id)) if comp is not None else None
    if comp is not None and fc is not None and fc.n_window_days:
        return comp, fc
    return p, findings.get((p.metric_id, p.metric_id))


def verdict_lines(sg: Subgraph, analysis: dict | None, findings: dict) -> list[str]:
    """The answer's opening: a sentence naming the period with the asked metrics' verdict, then at
    most one sentence per intent (unusual days, explanation, guidance, or the analysis' verdict)."""
    analysis = analysis or {}
    category = analysis.get("category") or ""
    intent = analysis.get("intent")
    lead = period_words(sg, analysis)
    prims = sg.primaries
    out: list[str] = []
    if intent == "relationship" and analysis.get("relationships"):
        r = analysis["relationships"][0]
        ind = r["individual"]
        nn = r.get("next_night")
        if nn and nn.get("rho") is not None:
            # activity on a day against the sleep of the night after it (DESIGN.md §11)
            a_name = _lc(r["x_name"] if nn["activity"] == r["x"] else r["y_name"])
            s_name = _lc(r["y_name"] if nn["activity"] == r["x"] else r["x_name"])
            if nn.get("strength") == "negligible":
                verdict = (f"nights after days with more {a_name} were not clearly different in {s_name} "
                           f"(rho {nn['rho']:+.2f} over {nn['n']} day-night pairs)")
            else:
                verdict = (f"on nights after days with more {a_name}, your {s_name} tended to be "
                           f"{'higher' if nn['rho'] > 0 else 'lower'} ({nn['strength']}, rho {nn['rho']:+.2f} "
                           f"over {nn['n']} day-night pairs)")
            return [f"Over your days up to {r['as_of']}, {verdict}."]
        if ind.get("rho") is None:
            verdict = f"there is no personal correlation yet between {_lc(r['x_name'])} and {_lc(r['y_name'])}"
        elif ind.get("strength") == "negligible":
            verdict = (f"your {_lc(r['x_name'])} and {_lc(r['y_name'])} show no clear link in your data "
                       f"(rho {ind['rho']:+.2f} over {ind['n']} days)")
        else:
            verdict = (f"on days with more {_lc(r['x_name'])}, your {_lc(r['y_name'])} tended to be "
                       f"{'higher' if ind['rho'] > 0 else 'lower'} ({ind['strength']}, rho {ind['rho']:+.2f} "
                       f"over {ind['n']} days)")
        lead_rel = f"Over your days up to {r['as_of']}" if not r.get("period") else lead
        return [f"{lead_rel}, {verdict}."]
    if intent == "trend" and analysis.get("trends"):
        t = analysis["trends"][0]
        if t.get("slope_per_week") is None:
            return [f"{lead}, there are too few days of {_lc(t['name'])} for a trend."]
        word = {"up": "rose", "down": "fell", "flat": "showed no clear trend"}[t.get("direction") or "flat"]
        size = fmt(abs(t["slope_per_week"]), t.get("unit", "")) if not is_clock_unit(t.get("unit", "")) \
            else f"{abs(t['slope_per_week']):.0f} min"
        rate = "" if word.startswith("showed") else f" by about {size} a week"
        return [f"{lead}, your {_lc(t['name'])} {word}{rate}."]
    if analysis.get("comparison"):
        c = analysis["comparison"]
        m = c["metrics"][0] if c["metrics"] else None
        if m and m.get("effect_size") is not None:
            d = m["effect_size"] if c["kind"] != "before_after" else -m["effect_size"]
            pa, pb = (c["b"], c["a"]) if c["kind"] == "before_after" else (c["a"], c["b"])

            def span(p: dict, fallback: str) -> str:
                dates = f" ({p['start']} to {p['end']})" if p.get("start") and p.get("end") else ""
                return (p.get("label") or fallback) + dates

            first, second = span(pa, "the first period"), span(pb, "the second")
            word = "about the same in" if abs(d) < 0.2 else ("slightly " if abs(d) < 0.5 else "") + \
                ("higher in" if d > 0 else "lower in")
            return [f"Your {_lc(m['name'])} was {word} {first} than in {second}"
                    f"{'' if abs(d) < 0.2 else f' ({abs(d):.2f} of your day-to-day SD)'}."]
    sentences = []
    for p in prims:
        # sleep leads with actual sleep; time in bed follows (its own line is in the evidence)
        node, f = leading(p, findings)
        sentences.append(_primary_sentence(node, f, sg, analysis))
    if sentences:
        out.append(f"{lead}, " + "; ".join(sentences) + ".")
    for p in prims[:2]:
        node, f = leading(p, findings)
        g = guidance_words(node, f, sg.subject_id.split(":", 1)[0])
        if g:
            out.append(g)
    if (category == "General Knowledge" or analysis.get("asks_definition")) and prims and prims[0].description:
        # the node's definition right after the verdict (DESIGN.md §11 general knowledge): what it is
        # and why it matters (the description's first two sentences)
        out.append(f"{prims[0].name}: " + ". ".join(prims[0].description.split(". ")[:2]).rstrip(".") + ".")
    for p in prims:
        node, f = leading(p, findings)
        if f is None or not f.n_window_days:
            continue
        if f.unusual_days:
            out.append(f"Unusual {_lc(label(node.metric_id, node.name))} days (2 SD or more from your usual): "
                       f"{_unusual_words(node, f, analysis.get('display_unit'))}.")
            same_days = _same_day_links(sg, findings, p, node, f)
            if same_days:
                out.append(same_days)
        elif category == "Anomaly Detection" and f.baseline_mean is not None:
            out.append(f"Nothing unusual in your {_lc(label(node.metric_id, node.name))}: every day within 2 SD of your usual.")
        if f.partial_days:
            out.append("Left out as partial days (far fewer records than your usual day, or 0 where you are "
                       "rarely at 0: probably not recorded): "
                       + ", ".join(x["day"].isoformat() for x in f.partial_days) + ".")
    if category == "Exploratory Analysis" or intent == "influences" or analysis.get("asks_why"):
        for p in prims[:1]:
            s = _explains(sg, findings, p, bool(analysis.get("asks_why")))
            if s:
                out.append(s)
    if category == "Actionable Advice":
        levers = _levers(sg, findings, prims[0]) if prims else []
        if levers:
            out.append("In your own data: " + "; ".join(levers) + ".")
    return out


def levers(sg: Subgraph, primary: Node) -> list[Node]:
    """The person's own modifiable levers for ``primary``: neighbours in Activity, Sleep or Lifestyle
    with a valid own |rho| >= 0.3, strongest first (DESIGN.md §11 Advice)."""
    rows = [n for n in sg.neighbours if n.primary_node == primary.metric_id and n.category in ("Activity", "Sleep", "Lifestyle")
            and n.r_s_signed is not None and abs(n.r_s_signed) >= OWN_LINK]
    rows.sort(key=lambda n: -abs(n.r_s_signed))
    return rows


def _levers(sg: Subgraph, findings: dict, primary: Node) -> list[str]:
    """The three strongest :func:`levers` in words: 'more X goes with higher Y (rho +0.36 over 74 days)'."""
    name = _lc(primary.name)
    return [f"{_more(n, True)} {_lc(n.name)} goes with {'higher' if n.r_s_signed > 0 else 'lower'} {name} "
            f"(rho {n.r_s_signed:+.2f} over {n.n_s} days{caution(n.n_s)})" for n in levers(sg, primary)[:3]]


def _same_day_links(sg: Subgraph, findings: dict, primary: Node, node: Node, f: Finding) -> str | None:
    """What else was off on the asked metric's unusual days: related metrics 1.5 SD or more from their
    usual level on those same days, in the direction that in the person's own data goes with the asked
    metric's deviation (own |rho| >= 0.3). 'On 2021-01-26 and 2021-01-28 your time asleep was also
    unusually low, which in your data goes with a lower sleep score.'"""
    # a 0 of a daily amount is possibly not recorded (_unusual_words): nothing is linked to such a day
    gap = node.unit in ADDITIVE_UNITS
    days = {u["day"]: u["z"] for u in f.unusual_days if not (gap and u["value"] == 0)}
    parts = []
    for n in sg.neighbours:
        g = findings.get((primary.metric_id, n.metric_id))
        if n.primary_node != primary.metric_id or g is None or n.r_s_signed is None or abs(n.r_s_signed) < OWN_LINK \
                or n.metric_id == node.metric_id or n.metric_id == primary.metric_id:
            continue
        sign = 1 if n.r_s_signed > 0 else -1
        hits = [x for x in g.notable_days
                if x["day"] in days and (1 if x["z"] > 0 else -1) * sign == (1 if days[x["day"]] > 0 else -1)]
        if hits:
            when = " and ".join(h["day"].isoformat() for h in hits[:3])
            word = "low" if hits[0]["z"] < 0 else "high"
            if is_clock_unit(n.unit):
                word = "early" if hits[0]["z"] < 0 else "late"
            name = _lc(label(n.metric_id, n.name))
            verb = "were" if re.search(r"[^su]s$", name.split(" (")[0]) else "was"     # "rhythm patterns were"
            parts.append(f"on {when} your {name} {verb} also unusually {word}")
    if not parts:
        return None
    return (f"What went with it: " + "; ".join(parts[:2]) +
            f" (in your own data, these move with your {_lc(label(node.metric_id, node.name))}).")


def guidance_words(node: Node, f: Finding | None, dataset: str) -> str | None:
    """Where the period's level stands against the general range of answer_text.toml
    ``[guidance_ranges]`` (DESIGN.md §11 advice): 'That is below the 7-9 h adults need.' (None inside
    the range, without a range, or where the range does not fit the instrument)."""
    from .wording import answer_words, guidance_fits

    rng = answer_words().get("guidance_ranges", {}).get(node.metric_id)
    if not rng or f is None or f.period_mean is None or not guidance_fits(node, dataset):
        return None
    lo, hi, words = rng["low"], rng["high"], rng["words"]
    shown = round(f.period_mean)          # as printed: 7 h 00 min is not "below 7 h"
    usual = round(f.baseline_mean) if f.baseline_mean is not None else None
    if shown < lo:
        # a long-running shortfall is said as such (a reader: "say plainly the person usually sleeps <6 h")
        return f"That is below {words}" + (", and so is your usual level." if usual is not None and usual < lo else ".")
    if shown > hi:
        return f"That is above {words}" + (", and so is your usual level." if usual is not None and usual > hi else ".")
    return f"That is within {words}." if hi < 1e5 else None


def own_direction(n: Node, primary_name: str) -> str | None:
    """The person's own direction for a neighbour, when valid: 'In your data, on days with more X,
    Y tended to be higher (rho +0.52 over 81 days).'"""
    if n.r_s_signed is None or abs(n.r_s_signed) < OWN_LINK or not n.n_s:
        return None
    more = f"a later {_lc(n.name)}" if is_clock_unit(n.unit) else f"more {_lc(n.name)}"
    return (f"In your data, on days with {more}, your {_lc(primary_name)} tended to be "
            f"{'higher' if n.r_s_signed > 0 else 'lower'} (rho {n.r_s_signed:+.2f} over {n.n_s} days"
            f"{caution(n.n_s)}).")


def caution(n: int | None) -> str:
    """'; only N days, so treat it with caution' below 30 paired days (DESIGN.md §5's minimum is 10)."""
    return f"; only {n} days, so treat it with caution" if n is not None and n < 30 else ""


def _moved(n: Node, d: float | None) -> str:
    """'higher' / 'lower', or 'later' / 'earlier' for a clock time (bedtime, wake time)."""
    return direction_word(d, "later", "earlier") if is_clock_unit(n.unit) else direction_word(d)


def _more(n: Node, up: bool) -> str:
    """'more' / 'less', or 'a later' / 'an earlier' for a clock time."""
    if is_clock_unit(n.unit):
        return "a later" if up else "an earlier"
    return "more" if up else "less"


def finding_sentence(n: Node, g: Finding | None, primary_name: str) -> str:
    """One sentence on a neighbour with a finding."""
    if g is None or g.d is None:
        return ""
    move = f"{_moved(n, g.d)} than usual ({g.d:+.1f} SD"
    if g.finding == "explains":
        return f"{move}), which fits the change in your {_lc(primary_name)}."
    if g.finding == "opposite":
        return f"{move}), so it does not explain the change in your {_lc(primary_name)}."
    return f"{move})."
