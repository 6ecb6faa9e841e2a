"""Question parsing under bad input (issue 9 item 8): a question naming no known metric gets the
closest candidates to choose from; a model reply with its JSON inside a code fence followed by prose
(or after a sentence) is decoded (the first JSON value), then validated; `wag parse` says which
reference day it used and takes the subject's last day like `wag ask`."""

from __future__ import annotations

import json
from datetime import date

import duckdb
import pytest
from typer.testing import CliRunner

from wag_cli.cli import app
from wag_cli.llm import parse_reply

runner = CliRunner()
SCHEMA = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"], "additionalProperties": False}


@pytest.mark.parametrize("reply, value", [
    ('{"a": 1}', 1),
    ('```json\n{"a": 2}\n```\nI chose 2 because the question mentions two metrics.', 2),
    ('Here is the JSON you asked for: {"a": 3}', 3),
    ('{"a": 4}\n\nExplanation: the window is 7 days.', 4),
])
def test_first_json_value_of_a_chatty_reply_is_decoded(reply, value):
    assert parse_reply(reply, SCHEMA) == ({"a": value}, None)


@pytest.mark.parametrize("reply", ['no JSON at all', '{"a": "x"} and more', '{"a": NaN}', '```json\n{"a": 1,}\n```'])
def test_invalid_replies_are_rejected_not_repaired(reply):
    value, reason = parse_reply(reply, SCHEMA)
    assert value is None and reason


@pytest.fixture()
def wh(built_db, monkeypatch):
    monkeypatch.setenv("WAG_DB", str(built_db))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return built_db


def test_unknown_metric_gets_closest_candidates_not_a_guess(wh):
    res = runner.invoke(app, ["ask", "How is my resting hart rat lately, and my zorblat?", "--subject", "pmdata:p01"])
    # a close misspelling is matched (fuzzy, shown in the parse) ...
    assert res.exit_code == 0, res.output
    # ... a term close to nothing gets no list of unrelated names (a new-user review: "Tell me
    # something" was offered sweat rate and travel patterns), but the overview question and the list
    res = runner.invoke(app, ["ask", "How is my zorblat quotient?", "--subject", "pmdata:p01"])
    assert res.exit_code == 2
    assert "did you mean" not in res.output and "How am I doing overall?" in res.output
    out = json.loads(runner.invoke(app, ["parse", "How is my zorblat quotient?", "--subject", "pmdata:p01",
                                         "--json"]).output)
    assert out["metrics"] == [] and out["closest_metrics"] == []


def test_parse_reference_day_is_the_subjects_last_day_or_stated(wh):
    con = duckdb.connect(str(wh), read_only=True)
    try:
        last = con.execute("select max(day) from metric_values where subject_id = 'pmdata:p01'").fetchone()[0]
    finally:
        con.close()
    out = json.loads(runner.invoke(app, ["parse", "How did I sleep yesterday?", "--subject", "pmdata:p01",
                                         "--json"]).output)
    assert out["as_of"] == last.isoformat() and "pmdata:p01" in out["as_of_source"]
    assert out["reference_day"] == date.fromordinal(last.toordinal() - 1).isoformat()
    out = json.loads(runner.invoke(app, ["parse", "How did I sleep?", "--json"]).output)
    assert out["as_of"] == date.today().isoformat() and out["as_of_source"].startswith("today")
    out = json.loads(runner.invoke(app, ["parse", "How did I sleep?", "--as-of", "2020-01-05", "--json"]).output)
    assert out["as_of"] == "2020-01-05" and out["as_of_source"] == "--as-of"


def test_a_near_miss_is_offered_and_unrelated_names_are_not():
    """no_metric_hint offers only labels close to the question's words (rapidfuzz ratio >= 75)."""
    from wag_cli.pipeline import no_metric_hint
    from wag_cli.catalog import load_catalog

    catalog = load_catalog()
    msg, names = no_metric_hint("stepz yesterday", catalog)
    assert names == ["Steps taken"] and "did you mean 'steps taken'?" in msg
    msg, names = no_metric_hint("Tell me something", catalog)
    assert names == [] and "How am I doing overall?" in msg
