"""`wag ask` / `wag parse` orchestration: validate input, parse the question (QueryParse, DESIGN.md
§8), retrieve the subgraph through the warehouse's wag_retrieve macro, answer it.

Errors a user can cause (empty question, unknown subject, a date outside the subject's data, a
question naming no known metric) raise :class:`UsageError` with a one-line explanation.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from importlib import resources

import duckdb

from .answer import Answer, model_answer, offline_answer
from .db import fetch_dicts, warehouse
from .errors import UsageError
from .retrieve import METHODS, Subgraph, retrieve


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


def parse_question(question: str, as_of: date, *, offline: bool = False, catalog=None, client=None):
    """QueryParse with the model when configured, else (or on any model failure) offline."""
    from .catalog import load_catalog
    from .parse import parse

    if not question or not question.strip():
        raise UsageError("the question is empty; ask something like \"How did I sleep this week?\"")
    catalog = catalog or load_catalog()
    client = client if client is not None else _client(offline)
    try:
        return parse(question, as_of, catalog=catalog, client=client)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def check_subject(con: duckdb.DuckDBPyConnection, subject_id: str) -> dict:
    """The subject's period {dataset, first_day, last_day}; UsageError if unknown."""
    rows = fetch_dicts(con, _sql("subject_period.sql"), {"subject": subject_id})
    if not rows:
        known = fetch_dicts(
            con,
            "select distinct subject_id from metric_values "
            "order by jaro_winkler_similarity(subject_id, $s) desc, subject_id limit 3",
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
        }


def answer_question(
    question: str,
    subject_id: str,
    *,
    as_of: date | None = None,
    method: str = "wag",
    offline: bool = False,
) -> AskResult:
    """Parse, retrieve and answer (DESIGN.md §8). Raises UsageError / DatabaseError for bad input."""
    from .catalog import load_catalog

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
        parsed = parse_question(question, ref, catalog=catalog, client=client)
        if not parsed.metrics:
            raise UsageError(
                "the question names no metric this warehouse knows; name one, e.g. 'deep sleep', "
                "'resting heart rate', 'steps' or 'stress' (`wag sql \"select metric_id, name from nodes\"` lists them)"
            )
        if not (first <= parsed.reference_day <= last):
            raise UsageError(
                f"the question asks about {parsed.reference_day.isoformat()}, outside {subject_id}'s data "
                f"({first.isoformat()} .. {last.isoformat()}); ask about a day inside that range"
            )
        sg = retrieve(
            con,
            subject_id=subject_id,
            metrics=parsed.metrics,
            reference_day=parsed.reference_day,
            window_days=parsed.window_days,
            openness=parsed.openness,
            method=method,
            catalog=catalog,
        )
    ans = model_answer(question, sg, client) if client is not None else offline_answer(question, sg)
    return AskResult(question=question, subject_id=subject_id, parsed=parsed, subgraph=sg, answer=ans)
