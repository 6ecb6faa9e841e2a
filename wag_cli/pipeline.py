"""The one question -> answer path (DESIGN.md §8-§11), used by `wag ask`, `wag eval run`, the MCP
server and the benchmarks: validate the input, parse the question (QueryParse), retrieve the subgraph
through the warehouse's wag_retrieve macro, compute the question's analysis
(:func:`wag_cli.analysis.question_analysis`) and answer it (:func:`answer_subgraph`: offline, or with
a model when one is configured).

Errors a user can cause (empty question, unknown subject, a date outside the subject's data, a
question naming no known metric) raise :class:`UsageError` with a one-line explanation.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import duckdb

from .analysis import OVERVIEW_METRICS, Analysis, _sql, question_analysis
from .answer.model import model_answer
from .answer.offline import offline_answer
from .answer.text import Answer
from .db import fetch_dicts, warehouse
from .errors import UsageError
from .retrieve import METHODS, Subgraph, retrieve

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
    :mod:`wag_cli.query.model`), else (or on any model failure) offline. ``data_range``: the
    subject's (first, last) day, which a model's reading of a period must overlap."""
    from .catalog import load_catalog
    from .query.model import parse

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

    from .query.lexicon import _STOPWORDS, tokens

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


@dataclass
class Prepared:
    """What an answer is made from: the question, the retrieved subgraph, its analysis (None when the
    question could not be parsed, as in an evaluation query the parser rejects) and, for a WAG
    answer with a model, FullContext (every metric with data; it caps the WAG prompt's size)."""

    question: str
    subgraph: Subgraph
    analysis: Analysis | None
    full: Subgraph | None = None


def prepare_answer(con: duckdb.DuckDBPyConnection, question: str, parsed, sg: Subgraph, catalog: dict, *,
                   metrics: list[str], overview: list[dict] | None = None, settings=None,
                   with_full: bool = False) -> Prepared:
    """The analysis of ``parsed`` over ``sg`` (all SQL, on the open warehouse ``con``) and, with
    ``with_full``, FullContext (:func:`wag_cli.answer.context.full_context`). ``parsed`` None gives
    no analysis."""
    analysis = (question_analysis(con, parsed, sg, catalog, metrics=metrics, overview=overview, settings=settings)
                if parsed is not None else None)
    full = None
    if with_full:
        from .answer.context import full_context

        full = full_context(con, sg, catalog)
    return Prepared(question=question, subgraph=sg, analysis=analysis, full=full)


def answer_prepared(prepared: Prepared, client=None, *, budget: int | None = None) -> Answer:
    """The answer of `wag ask` and `wag eval run` alike: with ``client`` (an LLMClient) the model's
    (:func:`wag_cli.answer.model.model_answer`, prompt within ``budget`` tokens; FullContext caps a WAG
    prompt), else the deterministic offline answer. Needs no warehouse connection."""
    p = prepared
    if client is not None:
        return model_answer(p.question, p.subgraph, client, p.analysis, budget=budget, full=p.full)
    return offline_answer(p.question, p.subgraph, p.analysis)


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
    ``budget``: the model prompt's token budget (default :data:`wag_cli.answer.context.DEFAULT_BUDGET`; a WAG
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
        prepared = prepare_answer(con, question, parsed, sg, catalog, metrics=metrics, overview=overview,
                                  settings=settings, with_full=client is not None and method == "wag")
    ans = answer_prepared(prepared, client, budget=budget)
    analysis = prepared.analysis
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
