"""The question's analysis (DESIGN.md §8-§11): the question-shaped, numeric part of every answer,
computed in SQL (``wag_cli/sql/``) over the retrieved subgraph and the as-of weights.

:func:`question_analysis` returns an :data:`Analysis`, a dict of plain values (dates as ``date``) that
the offline answer renders and the model reads in its data block. Its keys (all optional but
``intent``, ``period``, ``category``, ``findings`` and ``verdict``):

* ``intent`` — ``lookup`` | ``relationship`` | ``influences`` | ``trend`` | ``comparison`` |
  ``overview`` (``wag_cli.query.shape.question_shape``);
* ``period`` — the period used (``Period.to_json``: label, start, end, days), stated in the answer;
* ``display_unit`` — the unit the question asks in ("hours") or None;
* ``relationships`` — per pair of asked metrics: ``{x, y, x_name, y_name, has_edge, relationship,
  individual: {rho, n, strength, direction, reason}, population: {rho, n, n_subjects, strength,
  direction, reason, as_of | reference}, as_of}`` (as-of correlations of §5-§6; ``rho`` None with a
  ``reason``);
* ``influences`` — ``{metric, name, as_of, neighbours: [{metric_id, name, w_global, individual,
  population, relationship}], own: [...]}``: X's candidates ranked by the as-of W_global;
* ``trends`` — per metric: Theil-Sen ``slope_per_week`` with ``low_per_week``/``high_per_week``
  (95 %), ``direction`` (up/down/flat), ``n_days``, first vs second half means and days;
* ``comparison`` — ``{kind, a, b, metrics: [{metric_id, name, unit, a_days, a_mean, ..., difference}]}``
  with ``difference = a_mean - b_mean``;
* ``overview`` — the most abnormal metrics of the window ``[{metric_id, category, zeta, n_window_days}]``;
* ``notes`` — sentences on what could not be computed; ``period_notes`` — how the period was read
  when the rules could not (§11);
* ``category``, ``asks_why``, ``asks_definition`` — the question's §10 category and its wording;
* ``findings`` — the §11 findings of ``sql/findings.sql`` as rows (:mod:`wag_cli.answer.findings`);
* ``verdict`` — the answer's opening lines (:func:`wag_cli.answer.verdict.verdict_lines`).
"""

from __future__ import annotations

import re
from importlib import resources
from typing import Any

import duckdb

from .answer.wording import label, reason_text, strength_word
from .db import fetch_dicts
from .retrieve import COMPANIONS, Subgraph

#: The analysis of one question (module docstring: its keys).
Analysis = dict[str, Any]

#: Metrics an overview question ("how am I doing overall?") looks at: the most abnormal ones.
OVERVIEW_METRICS = 5
#: Neighbours listed for "what affects X most".
INFLUENCES_SHOWN = 5

def _sql(name: str) -> str:
    return resources.files("wag_cli").joinpath("sql", name).read_text(encoding="utf-8")

def _corr(rho, n, reason, n_subjects=None, as_of=None, source=None, **names) -> dict:
    """One correlation of the analysis: rho (signed), n, strength and direction words, or the reason;
    ``as_of`` (population): the day of the monthly snapshot the pooled days end on (DESIGN.md §6);
    ``source`` (population): where the evidence came from, the subject's own dataset or
    ``'reference: <datasets>'`` (§6 "Small cohorts": the other datasets' meta-analysis)."""
    out = {"rho": rho, "n": n, "strength": strength_word(rho),
           "direction": None if rho is None else ("positive" if rho > 0 else "negative" if rho < 0 else "none"),
           "reason": None if rho is not None else reason_text(reason or "no_estimate", **names)}
    if n_subjects is not None or "day" in names:
        out["n_subjects"] = n_subjects
    if source is not None and str(source).startswith("reference: "):
        # other people's full history, not this dataset's pooled days up to a snapshot
        out["reference"] = str(source)[len("reference: "):]
    elif as_of is not None:
        out["as_of"] = as_of
    return out

def _source_notes(measurement: str) -> str:
    """``a | b`` (metric_sources) as ``a, and b`` for a sentence."""
    parts = [p.strip() for p in measurement.split(" | ") if p.strip()]
    return ", and ".join(parts)


def _pop_names(names: dict, pop_as_of_day) -> dict:
    """The reason-text names of a population correlation: its day is the snapshot's, not t."""
    return {**names, "day": pop_as_of_day.isoformat()} if pop_as_of_day is not None else names


def _pair_reason(row: dict, side: str, names: dict) -> str:
    """Why an as-of correlation is missing: the macro's reason, else why the pair has no row
    (a metric without data or variation for the subject is no candidate, so neither stage is
    looked up)."""
    if row.get(f"{side}_reason"):
        return row[f"{side}_reason"]
    if row.get("w_global") is not None:
        return "no_estimate"
    for end in ("x", "y"):
        if row[f"{end}_days"] == 0:
            return f"no_data_{end}"
        if row[f"{end}_distinct"] < 2:
            return f"constant_{end}"
    return "no_estimate"


def _display_metrics(metrics: list[str]) -> list[str]:
    """The asked metrics with their companions (time asleep beside time in bed), companions first."""
    out: list[str] = []
    for m in metrics:
        if m in COMPANIONS:
            out.append(COMPANIONS[m])
        out.append(m)
    return list(dict.fromkeys(out))


def question_analysis(con: duckdb.DuckDBPyConnection, parsed, sg: Subgraph, catalog: dict, *,
                      metrics: list[str] | None = None, overview: list[dict] | None = None,
                      settings=None) -> dict:
    """The question-shaped part of the answer (the ``analysis`` of :mod:`wag_cli.answer`).

    Everything numeric comes from SQL: pair correlations and influences from the as-of weights
    (``pair_correlation.sql`` / ``influences.sql`` over ``wag_edge_weights_as_of``, days <= t only,
    DESIGN.md §5-§6), trends from ``trend.sql`` (Theil-Sen), comparisons from ``compare.sql``. The
    period is the parse's (§8 "Periods"). Returns a dict of plain values (dates as ``date``).
    """
    from .settings import RetrievalSettings

    weights = (settings or RetrievalSettings.from_project()).weight_params()
    metrics = list(metrics if metrics is not None else parsed.metrics)
    t = parsed.reference_day
    period = parsed.resolved_period
    name = lambda m: (catalog[m].name if m in catalog else m)  # noqa: E731
    unit = lambda m: (catalog[m].unit if m in catalog else "")  # noqa: E731
    numeric = [m for m in metrics if m in catalog and catalog[m].data_kind == "numeric"]
    out: dict = {"intent": parsed.intent, "period": period.to_json(), "display_unit": parsed.display_unit,
                 # "how many steps ...", "how much ... in total": daily amounts lead with the period total
                 "asks_total": bool(re.search(r"\bhow (many|much)\b|\btotal\b|\baltogether\b",
                                              getattr(parsed, "question", "") or "", re.I))}
    if getattr(parsed, "corrections", None):
        out["notes"] = ["read " + ", ".join(f'"{a}" as "{b}"' for a, b in parsed.corrections)]
    if getattr(parsed, "period_notes", None):    # DESIGN.md §11: a period word not understood, or the model's reading
        out["period_notes"] = list(parsed.period_notes)
        out["notes"] = list(parsed.period_notes) + out.get("notes", [])
    if parsed.intent == "overview":
        out["overview"] = overview or []
    if parsed.intent == "relationship" and len(numeric) >= 2:
        paired = _display_metrics(numeric)          # time asleep is paired too, not only time in bed
        rows = fetch_dicts(con, _sql("pair_correlation.sql"), {"subject": sg.subject_id, "ref_day": t, "metrics": paired,
                                                               **weights})
        own = {frozenset((COMPANIONS[m], m)) for m in numeric if m in COMPANIONS}
        measured = {n.metric_id: n.measurement for n in sg.nodes}
        order = {m: i for i, m in enumerate(paired)}
        rels = []
        for r in sorted(rows, key=lambda r: (order[r["node_x"]], order[r["node_y"]])):
            if frozenset((r["node_x"], r["node_y"])) in own:
                continue
            names = {"x": name(r["node_x"]).lower(), "y": name(r["node_y"]).lower(), "day": t.isoformat()}
            rels.append({
                "x": r["node_x"], "y": r["node_y"], "x_name": label(r["node_x"], name(r["node_x"])),
                "y_name": label(r["node_y"], name(r["node_y"])),
                "has_edge": bool(r["has_edge"]), "relationship": r["relationship"], "as_of": t,
                "individual": _corr(r["r_s_signed"], r["n_s"], _pair_reason(r, "r_s", names), **names),
                "population": _corr(r["r_pop_signed"], r["n_pop"], _pair_reason(r, "r_pop", names),
                                    n_subjects=r["n_pop_subjects"], as_of=r["pop_as_of_day"],
                                    source=r["pop_source"], **_pop_names(names, r["pop_as_of_day"])),
            })
            pooled = [f"{name(m)} ({_source_notes(measured[m])})" for m in (r["node_x"], r["node_y"])
                      if " | " in (measured.get(m) or "")]
            if pooled and rels[-1]["population"].get("rho") is not None:
                # one metric id fed by several source fields in this dataset (GLOBEM's INS-W_1 0-3 item
                # and the 0-6 sub-score of INS-W_2..4): the pooled ranks mix them, the individual do not
                rels[-1]["population"]["pooled_sources"] = "; ".join(pooled)
            if r["w_global"] is None and r["has_edge"]:        # no as-of row: say why once
                rels[-1]["population"]["reason"] = "not looked up, since " + rels[-1]["individual"]["reason"]
            if parsed.period is not None and parsed.period.label and period.start is not None:
                # the question names a period ("over the past month"): the pair over that period too
                pr = fetch_dicts(con, _sql("pair_correlation_period.sql"), {
                    "subject": sg.subject_id, "metric_x": r["node_x"], "metric_y": r["node_y"],
                    "start": period.start, "end": period.end, "min_samples": weights["min_samples"]})[0]
                rels[-1]["period"] = {**_corr(pr["spearman_rho"], pr["n"], pr["null_reason"], **names),
                                      "label": period.describe()}
            cats = {catalog[m].category for m in (r["node_x"], r["node_y"]) if m in catalog}
            if cats == {"Activity", "Sleep"}:
                # "on days when I am more active, do I sleep longer?": the day's activity with the night
                # after it (the sleep that ends the next morning), DESIGN.md §11
                act = r["node_x"] if catalog[r["node_x"]].category == "Activity" else r["node_y"]
                slp = r["node_y"] if act == r["node_x"] else r["node_x"]
                nn = fetch_dicts(con, _sql("pair_next_night.sql"), {
                    "subject": sg.subject_id, "activity": act, "sleep": slp, "ref_day": t,
                    "min_samples": weights["min_samples"]})[0]
                rels[-1]["next_night"] = {**_corr(nn["spearman_rho"], nn["n"], nn["null_reason"], **names),
                                          "activity": act, "sleep": slp}
                rels[-1]["pairing_note"] = (
                    f"each day's {name(act).lower()} is paired with the sleep of the night after it (the sleep "
                    "that ends the next morning); the same-day figures pair it with the night before")
            elif "Sleep" in cats and len(cats) == 2:
                # §2 dates sleep by the wake-up day and §5 pairs same-day values: say which night is meant
                other = r["node_y"] if catalog[r["node_x"]].category == "Sleep" else r["node_x"]
                rels[-1]["pairing_note"] = (
                    f"sleep is dated by the day you woke up, so each day's {name(other).lower()} is paired "
                    "with the night that ended that morning, not the night after it")
        out["relationships"] = rels
    if parsed.intent == "relationship" and len(numeric) < 2:
        text_ids = [m for m in metrics if m not in numeric]
        out["relationships"] = []
        out.setdefault("notes", []).extend(
            [f"{name(m)} is a text log, so no correlation can be computed with it" for m in text_ids] or
            ["the question names only one metric, so there is no pair to correlate"])
    if parsed.intent == "influences" and numeric:
        x = numeric[0]
        ranked = fetch_dicts(con, _sql("influences.sql"), {"subject": sg.subject_id, "ref_day": t, "metric": x,
                                                            "limit": INFLUENCES_SHOWN, **weights})
        rows = [r for r in ranked if r["weight_rank"] <= INFLUENCES_SHOWN]          # by W_global
        own = sorted((r for r in ranked if r["own_rank"] is not None and r["own_rank"] <= INFLUENCES_SHOWN),
                     key=lambda r: r["own_rank"])                                    # by the person's |r_s|
        neigh = []
        for r in rows:
            names = {"x": name(x).lower(), "y": name(r["node_y"]).lower(), "day": t.isoformat()}
            neigh.append({"metric_id": r["node_y"], "name": name(r["node_y"]), "w_global": r["w_global"],
                          "fallback": r["fallback"], "relationship": r["relationship"],
                          "individual": _corr(r["r_s_signed"], r["n_s"], r["r_s_reason"], **names),
                          "population": _corr(r["r_pop_signed"], r["n_pop"], r["r_pop_reason"],
                                              n_subjects=r["n_pop_subjects"], as_of=r["pop_as_of_day"],
                                              source=r["pop_source"], **_pop_names(names, r["pop_as_of_day"]))})
        out["influences"] = {"metric": x, "name": name(x), "as_of": t, "neighbours": neigh,
                             "own": [{"metric_id": r["node_y"], "name": name(r["node_y"]), "rho": r["r_s_signed"],
                                      "n": r["n_s"], "strength": strength_word(r["r_s_signed"])} for r in own]}
    shown = _display_metrics(numeric)
    if parsed.intent == "trend" and shown:
        rows = fetch_dicts(con, _sql("trend.sql"), {"subject": sg.subject_id, "metrics": shown,
                                                     "start": period.start, "end": period.end})
        by_id = {r["metric_id"]: r for r in rows}
        out["trends"] = [{**by_id[m], "name": label(m, name(m)), "unit": unit(m)} if m in by_id else
                         {"metric_id": m, "name": label(m, name(m)), "unit": unit(m), "n_days": 0} for m in shown]
    if parsed.comparison is not None and shown:
        kind, a, b = parsed.comparison
        rows = fetch_dicts(con, _sql("compare.sql"), {
            "subject": sg.subject_id, "metrics": shown,
            "a_start": a.start, "a_end": a.end, "a_dows": list(a.iso_days),
            "b_start": b.start, "b_end": b.end, "b_dows": list(b.iso_days)})
        by_id = {r["metric_id"]: r for r in rows}
        out["comparison"] = {"kind": kind, "a": a.to_json(), "b": b.to_json(),
                             "metrics": [{**by_id[m], "name": label(m, name(m)), "unit": unit(m)} for m in shown]}
    # the finding first (DESIGN.md §11): findings in SQL over the retrieved subgraph, and the verdict
    # the offline answer opens with and the model is asked to lead with
    from .answer.verdict import verdict_lines
    from .answer.findings import findings_for, to_rows

    out["category"] = getattr(parsed, "category", None)
    # "what is HRV?": the node's definition comes first (DESIGN.md §11 general knowledge)
    text = getattr(parsed, "question", "") or ""
    # "why does it matter?" asks for importance, not for an explanation of a change
    out["asks_why"] = bool(re.search(r"\bwhy\b(?! (?:does|do|is|are) (?:it|this|that|they|hrv|\w+) (?:matter|important))"
                                     r"|how come|what(?:'s| is) (?:causing|behind)", text, re.I))
    out["asks_definition"] = bool(re.match(r"\s*(what\s+(is|are)\b|what does\b.*\bmean|define\b)", text, re.I)
                                  and not re.search(r"\b(my|me|mine|i)\b", text, re.I))
    found = findings_for(con, sg)
    out["findings"] = to_rows(found)
    out["verdict"] = verdict_lines(sg, out, found)
    return out
