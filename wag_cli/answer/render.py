"""Per-intent renderers of the analysis (DESIGN.md §11): relationships, influences, trends,
comparisons and the overview, as answer lines."""

from __future__ import annotations


from ..retrieve import Node
from .wording import _lc, display_unit_for, fmt, fmt_delta, reason_text
from .text import SAME_EFFECT, SLIGHT_EFFECT, compare_to_usual


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
