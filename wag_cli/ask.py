"""`wag ask` / `wag parse` orchestration: validate input, parse the question (QueryParse, DESIGN.md
§8), retrieve the subgraph through the warehouse's wag_retrieve macro, build the question's
analysis (:func:`question_analysis`: the SQL of ``wag_cli/sql/`` for relationships, influences,
trends, comparisons and the overview) and answer it.

Errors a user can cause (empty question, unknown subject, a date outside the subject's data, a
question naming no known metric) raise :class:`UsageError` with a one-line explanation.
"""

from __future__ import annotations

import re

from dataclasses import dataclass
from datetime import date
from importlib import resources

import duckdb

from .answer import Answer, label, model_answer, offline_answer, reason_text, strength_word
from .db import fetch_dicts, warehouse
from .errors import UsageError
from .retrieve import COMPANIONS, METHODS, Subgraph, retrieve

#: Metrics an overview question ("how am I doing overall?") looks at: the most abnormal ones.
OVERVIEW_METRICS = 5
#: Neighbours listed for "what affects X most".
INFLUENCES_SHOWN = 5


def _sql(name: str) -> str:
    return resources.files("wag_cli").joinpath("sql", name).read_text(encoding="utf-8")


def _client(offline: bool):
    """The optional model client (None offline or without OPENAI_API_KEY)."""
    if offline:
        return None
    try:
        from .llm import get_client
    except ImportError:  # pragma: no cover - llm layer absent
        return None
    return get_client(offline=offline)


def parse_question(question: str, as_of: date, *, offline: bool = False, catalog=None, client=None,
                   delta: float | None = None, data_range: tuple[date, date] | None = None):
    """QueryParse (DESIGN.md §8) with the model when configured (its corrections of the offline reading,
    :mod:`wag_cli.parse_combine`), else (or on any model failure) offline. ``data_range``: the
    subject's (first, last) day, which a model's reading of a period must overlap."""
    from .catalog import load_catalog
    from .parse_combine import parse

    if not question or not question.strip():
        raise UsageError("the question is empty; ask something like \"How did I sleep this week?\"")
    catalog = catalog or load_catalog()
    client = client if client is not None else _client(offline)
    try:
        return parse(question, as_of, catalog=catalog, client=client, delta=delta, data_range=data_range)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def reference_day_for(subject_id: str | None, as_of: date | None) -> tuple[date, str]:
    """The reference day of `wag parse` and what it came from: ``--as-of``, else the subject's last day
    with data (as `wag ask`), else today. UsageError for an unknown subject."""
    if as_of is not None:
        return as_of, "--as-of"
    if subject_id:
        with warehouse() as con:
            return check_subject(con, subject_id)["last_day"], f"last day with data of {subject_id}"
    return date.today(), "today (no --as-of or --subject given)"


def no_metric_hint(question: str, catalog: dict, k: int = 3) -> tuple[str, list[str]]:
    """(message, names) for a question that names no known metric: the ``k`` catalog metrics whose
    name or alias is closest to the question's words (rapidfuzz WRatio), offered for the user to
    choose — nothing is mapped silently."""
    from rapidfuzz import fuzz

    from .parse import _STOPWORDS, tokens

    words = [w for w in tokens(question) if len(w) >= 3 and w not in _STOPWORDS]
    score: dict[str, float] = {}
    for m in catalog.values():
        labels = [m.name.lower(), *(a.lower() for a in m.aliases)]
        # how well the question's words cover the label: best word match per label word, averaged
        s_best = 0.0
        for label in labels:
            parts = label.split()
            s = sum(max((fuzz.ratio(p, w) for w in words), default=0.0) for p in parts) / len(parts)
            s_best = max(s_best, s)
        score[m.name] = s_best
    ranked = sorted(score.items(), key=lambda kv: (-kv[1], kv[0]))
    best = [n for n, sc in ranked[:k] if sc >= WEAK_HINT_SCORE]
    overview = "; or ask \"How am I doing overall?\" for the metrics that stand out"
    if not best:
        # no word of the question is close to a metric ("Tell me something", "am I fine?"): a list of
        # unrelated names helps nobody (a new-user review), so point to the overview and the list
        return ("the question names no metric this warehouse knows" + overview.replace("; or", ":", 1)
                + " (`wag sql \"select metric_id, name from nodes\"` lists the metrics)"), []
    msg = ("the question names no metric this warehouse knows; did you mean "
           + ", ".join(f"'{b.lower()}'" for b in best)
           + "? Ask again naming one (`wag sql \"select metric_id, name from nodes\"` lists them all)" + overview)
    return msg, best


#: Below this rapidfuzz ratio (0-100) of the best metric label, no metric is offered as a guess.
WEAK_HINT_SCORE = 75.0   # "Tell me something" -> 71 (sweat rate), "hart rate" -> 94 (heart rate)


def check_subject(con: duckdb.DuckDBPyConnection, subject_id: str) -> dict:
    """The subject's period {dataset, first_day, last_day}; UsageError if unknown."""
    rows = fetch_dicts(con, _sql("subject_period.sql"), {"subject": subject_id})
    if not rows:
        known = fetch_dicts(
            con,
            # a bare id ("p01") is compared with the id after the dataset (and GLOBEM study) too
            "select subject_id from (select distinct subject_id from metric_values) "
            "order by greatest(jaro_winkler_similarity(subject_id, $s), "
            "jaro_winkler_similarity(regexp_extract(subject_id, '[^:/]+$'), $s)) desc, subject_id limit 3",
            {"s": subject_id},
        )
        hint = ", ".join(r["subject_id"] for r in known) or "none (the warehouse is empty)"
        raise UsageError(f"unknown subject {subject_id!r}; closest known: {hint} (`wag subjects` lists all)")
    return rows[0]


@dataclass
class AskResult:
    """Everything `wag ask` shows: the parse, the subgraph and the answer."""

    question: str
    subject_id: str
    parsed: object
    subgraph: Subgraph
    answer: Answer
    analysis: dict | None = None

    def to_json(self) -> dict:
        return {
            "question": self.question,
            "subject_id": self.subject_id,
            "method": self.subgraph.method,
            "parse": self.parsed.to_json(),
            "subgraph": self.subgraph.to_json(),
            "answer": self.answer.text,
            "answer_source": self.answer.source,
            "answer_note": self.answer.note,
            "answer_cached": self.answer.cached,
            "prompt_tokens": self.answer.prompt_tokens,
            "analysis": _jsonable(self.analysis),
        }


def answer_question(
    question: str,
    subject_id: str,
    *,
    as_of: date | None = None,
    method: str = "wag",
    offline: bool = False,
    settings=None,
    budget: int | None = None,
) -> AskResult:
    """Parse, retrieve and answer (DESIGN.md §8). Raises UsageError / DatabaseError for bad input.

    ``settings``: a :class:`wag_cli.settings.RetrievalSettings` (default: the dbt vars); every
    constant of retrieval and of the as-of weights is passed from it to the warehouse's macros.
    ``budget``: the model prompt's token budget (default :data:`wag_cli.context.DEFAULT_BUDGET`; a WAG
    prompt is also capped at the FullContext prompt's size).
    """
    from .catalog import load_catalog
    from .settings import RetrievalSettings

    settings = settings or RetrievalSettings.from_project()

    if not question or not question.strip():
        raise UsageError("the question is empty; ask something like \"How did I sleep this week?\"")
    if method not in METHODS:
        raise UsageError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    client = _client(offline)
    with warehouse() as con:
        period = check_subject(con, subject_id)
        first, last = period["first_day"], period["last_day"]
        ref = as_of or last
        if not (first <= ref <= last):
            raise UsageError(
                f"{ref.isoformat()} is outside {subject_id}'s data ({first.isoformat()} .. {last.isoformat()}); "
                "pick an --as-of inside that range"
            )
        catalog = load_catalog(con)
        parsed = parse_question(question, ref, catalog=catalog, client=client, delta=settings.delta,
                                data_range=(first, last))
        metrics = list(parsed.metrics)
        overview = None
        if not metrics and parsed.intent == "overview":
            overview = fetch_dicts(con, _sql("overview.sql"), {
                "subject": subject_id, "ref_day": parsed.reference_day,
                "window_days": parsed.window_days, "limit": OVERVIEW_METRICS})
            metrics = [r["metric_id"] for r in overview]
            if not metrics:
                raise UsageError(_no_overview_reason(con, subject_id, parsed))
        if not metrics:
            raise UsageError(no_metric_hint(question, catalog)[0])
        if not (first <= parsed.reference_day <= last):
            raise UsageError(
                f"the question asks about {_asked_period(parsed)}, outside {subject_id}'s data "
                f"({first.isoformat()} .. {last.isoformat()}); ask about a day inside that range"
            )
        sg = retrieve(
            con,
            subject_id=subject_id,
            metrics=metrics,
            reference_day=parsed.reference_day,
            window_days=parsed.window_days,
            openness=parsed.openness,
            method=method,
            catalog=catalog,
            settings=settings,
        )
        analysis = question_analysis(con, parsed, sg, catalog, metrics=metrics, overview=overview,
                                     settings=settings)
        full = None
        if client is not None and method == "wag":
            from .context import full_context

            full = full_context(con, sg, catalog)
    if client is not None:
        ans = model_answer(question, sg, client, analysis, budget=budget, full=full)
    else:
        ans = offline_answer(question, sg, analysis)
    return AskResult(question=question, subject_id=subject_id, parsed=parsed, subgraph=sg, answer=ans,
                     analysis=analysis)


def _jsonable(obj):
    if isinstance(obj, dict):
        return {k: _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, date):
        return obj.isoformat()
    if isinstance(obj, float):
        return round(obj, 4)
    return obj


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


def _asked_period(parsed) -> str:
    """The period a question names, for an error ('2019-08-01 to 2019-08-31 (31 days)' for "in August
    2019"), else its reference day."""
    per = parsed.period
    if per is None or not per.label:
        return parsed.reference_day.isoformat()
    return per.describe()


def _no_overview_reason(con: duckdb.DuckDBPyConnection, subject_id: str, parsed) -> str:
    """Why an overview has no metric to show, and what to ask instead: no data in the period, data on
    too few of its days for a window summary (var min_window_coverage: wag_node_window leaves zeta
    NULL), or no variation in the history to compare with."""
    period = parsed.resolved_period
    n_metrics, n_short, max_days = con.execute(
        "select count(*) filter (where n_window_days > 0), "
        "count(*) filter (where n_window_days > 0 and usual_sd > 0 and zeta is null), "
        "coalesce(max(n_window_days), 0) "
        "from wag_node_window(?, ?, ?)", [subject_id, parsed.reference_day, parsed.window_days]).fetchone()
    if n_metrics == 0:
        return (f"{subject_id} has no numeric data in {period.describe()}; ask about a period with data "
                "(--as-of, or `wag subjects` for the subject's days)")
    if n_short and period.window_days:
        return (f"{subject_id} has data on only {max_days} of the {period.window_days} days from "
                f"{period.start.isoformat()} to {period.end.isoformat()}, too few for an overview of the "
                "period; ask about a longer one (\"How am I doing this month?\") or another reference day (--as-of)")
    return (f"{subject_id}'s metrics with data in {period.describe()} do not vary over the subject's history, "
            "so nothing stands out against it; ask about a single metric instead")


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
    from .answer_verdict import verdict_lines
    from .findings import findings_for, to_rows

    out["category"] = getattr(parsed, "category", None)
    # "what is HRV?": the node's definition comes first (DESIGN.md §11 general knowledge)
    text = getattr(parsed, "question", "") or ""
    out["asks_why"] = bool(re.search(r"\bwhy\b|how come|what(?:'s| is) (?:causing|behind)", text, re.I))
    out["asks_definition"] = bool(re.match(r"\s*(what\s+(is|are)\b|what does\b.*\bmean|define\b)", text, re.I)
                                  and not re.search(r"\b(my|me|mine|i)\b", text, re.I))
    found = findings_for(con, sg)
    out["findings"] = to_rows(found)
    out["verdict"] = verdict_lines(sg, out, found)
    return out
