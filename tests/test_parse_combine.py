"""QueryParse with a model never reads a question worse than without one (issue 30; DESIGN.md §8
"QueryParse with a model", §11 period words not understood).

The model is the stub OpenAI-compatible server of tests/stub_openai.py behind the real client
(``wag_cli.llm``), scripted to reply with a wrong period, an invented metric, padded metrics and a
good correction of an offline miss. Expected values are written out by hand from the question and
the reference day, not read back from the parser.
"""

from __future__ import annotations

import json
from datetime import date

import pytest
from typer.testing import CliRunner

from stub_openai import StubOpenAI, reply_json, reply_text
from wag_cli.catalog import load_catalog
from wag_cli.query.periods import unrecognised_period
from wag_cli.query.offline import parse_offline
from wag_cli.query.model import combine_metrics, model_period, offline_confident, parse

T = date(2020, 1, 20)                       # the issue's --as-of
DEEP = "How did my deep sleep change over the past 2 weeks?"


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


@pytest.fixture
def model(monkeypatch):
    """(stub, client): the real client pointed at the stub, no retries, no cache."""
    from wag_cli.llm import get_client

    with StubOpenAI() as stub:
        monkeypatch.setenv("OPENAI_API_KEY", "test")
        monkeypatch.setenv("OPENAI_BASE_URL", stub.base_url)
        for var in ("WAG_CHAT_MODEL", "WAG_EMBED_MODEL"):
            monkeypatch.delenv(var, raising=False)
        monkeypatch.setenv("WAG_LLM_CACHE", "off")
        monkeypatch.setenv("WAG_LLM_TIMEOUT", "5")
        monkeypatch.setenv("WAG_LLM_RETRIES", "0")
        yield stub, get_client()


def _data(stub) -> dict:
    body = stub.bodies()[-1]
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    return json.loads(user.split("```json", 1)[1].rsplit("```", 1)[0])


# --------------------------------------------------------------------------- the four scripted replies


def test_wrong_period_from_the_model_never_replaces_the_rules(model, catalog):
    """The issue's example: the model answered window 'all' ending 2020-01-06. The reply schema has
    no period field, so such a reply is rejected; the parse keeps §8's 14 days ending on t."""
    stub, client = model
    stub.queue(reply_json({"metrics": ["deep_sleep_duration"], "window_days": "all", "ref_offset": -14,
                           "category": "Trend Analysis", "openness": 0.5}))
    p = parse(DEEP, T, catalog, client=client)
    assert (p.window_days, p.reference_day) == (14, T)
    assert p.resolved_period.start == date(2020, 1, 7)              # 2020-01-20 - 13 days
    assert p.metrics == ["deep_sleep_duration"]
    assert "period" not in json.dumps(stub.bodies()[-1]["response_format"])   # the period is not asked for


def test_valid_reply_with_period_days_still_keeps_the_rules(model, catalog):
    """Even a schema-valid reply (period fields asked for another question) cannot move this period."""
    stub, client = model
    stub.queue(reply_json({"metrics": ["deep_sleep_duration"], "category": "Trend Analysis", "openness": 0.55}))
    p = parse(DEEP, T, catalog, client=client)
    assert (p.window_days, p.reference_day, p.resolved_period.start) == (14, T, date(2020, 1, 7))
    assert p.sources == {"metrics": "offline", "category": "offline", "openness": "model", "period": "offline"}
    assert p.openness == 0.55 and p.category == "Trend Analysis"


def test_invented_metric_is_dropped(model, catalog):
    stub, client = model
    stub.queue(reply_json({"metrics": ["deep_sleep_duration", "deep_sleep_quality_index"],
                           "category": "Trend Analysis", "openness": 0.5}))
    p = parse(DEEP, T, catalog, client=client)
    assert p.metrics == ["deep_sleep_duration"] and p.dropped_metrics == ["deep_sleep_quality_index"]
    assert p.to_json()["dropped_metrics"] == ["deep_sleep_quality_index"]


def test_padded_metrics_do_not_replace_a_confident_offline_reading(model, catalog):
    """The model pads from the shortlist it is shown; the offline exact match is kept alone."""
    stub, client = model
    padding = ["deep_sleep_duration", "rem_sleep_duration", "light_sleep_duration", "total_sleep_duration"]
    stub.queue(reply_json({"metrics": padding, "category": "Trend Analysis", "openness": 0.5}))
    p = parse(DEEP, T, catalog, client=client)
    assert p.metrics == ["deep_sleep_duration"] and p.sources["metrics"] == "offline"
    assert p.overruled_metrics == ["rem_sleep_duration", "light_sleep_duration", "total_sleep_duration"]
    offered = {c["id"] for c in _data(stub)["catalog"]}
    assert set(padding) <= offered                                    # they were all on the shortlist


def test_good_correction_of_an_offline_miss_is_taken(model, catalog):
    """"shut-eye" is no catalog name or alias: offline finds nothing, the model's id fills in."""
    q = "Did I get enough shut-eye last week?"
    assert parse_offline(q, T, catalog).metrics == []
    stub, client = model
    stub.queue(reply_json({"metrics": ["asleep_duration"], "category": "Data Retrieval", "openness": 0.2}))
    p = parse(q, T, catalog, client=client)
    assert p.metrics == ["asleep_duration"] and p.sources["metrics"] == "model"
    assert p.matches == [{"phrase": None, "metric_id": "asleep_duration", "score": None, "how": "model"}]
    assert (p.window_days, p.reference_day) == (7, T)
    data = _data(stub)
    assert data["offline_reading"]["metrics"] == [] and list(data)[-1] == "question"


def test_unsure_offline_match_is_corrected_and_confirmed(model, catalog):
    """A typo-tolerant offline match is unsure: the model may replace it, or confirm it."""
    q = "How many stpes did I take yesterday?"
    assert [m["how"] for m in parse_offline(q, T, catalog).matches] == ["fuzzy"]
    stub, client = model
    stub.queue(reply_json({"metrics": ["steps_taken"], "category": "Data Retrieval", "openness": 0.2}),
               reply_json({"metrics": ["active_time"], "category": "Data Retrieval", "openness": 0.2}))
    assert parse(q, T, catalog, client=client).metrics == ["steps_taken"]
    p = parse(q, T, catalog, client=client)
    assert p.metrics == ["active_time"] and p.sources["metrics"] == "model"
    assert (p.window_days, p.reference_day) == (1, date(2020, 1, 19))


def test_model_failure_is_the_offline_parse(model, catalog):
    stub, client = model
    stub.queue(reply_text("no JSON here"))
    p = parse(DEEP, T, catalog, client=client)
    offline = parse_offline(DEEP, T, catalog)
    assert p.fallback_reason and (p.metrics, p.period, p.category) == (offline.metrics, offline.period, offline.category)


# --------------------------------------------------------------------------- unit rules


def test_combine_metrics_rules():
    exact = [{"metric_id": "steps_taken", "how": "exact"}]
    fuzzy = [{"metric_id": "steps_taken", "how": "exact"}, {"metric_id": "mood", "how": "fuzzy"}]
    assert offline_confident(exact) and not offline_confident(fuzzy) and not offline_confident([])
    assert combine_metrics(exact, ["mood"]) == (["steps_taken"], ["mood"])
    assert combine_metrics(fuzzy, []) == (["steps_taken", "mood"], [])                 # nothing proposed
    assert combine_metrics(fuzzy, ["steps_taken", "mood"]) == (["steps_taken", "mood"], [])
    assert combine_metrics(fuzzy, ["energy"]) == (["steps_taken", "energy"], [])       # the guess replaced
    assert combine_metrics([], ["a", "b", "c", "d"]) == (["a", "b", "c"], ["d"])       # at most 3 added
    assert combine_metrics([], ["a"], overview=True) == ([], ["a"])                    # overview stays one


def test_model_period_validation():
    first, t = date(2019, 11, 1), date(2020, 1, 20)
    p, why = model_period((date(2019, 12, 20), date(2020, 1, 5)), "over the holidays", t, (first, t))
    assert (p.start, p.end, p.window_days, p.label, why) == (date(2019, 12, 20), date(2020, 1, 5), 17, "over the holidays", "")
    p, _ = model_period((date(2019, 10, 20), date(2019, 11, 5)), "x", t, (first, t))
    assert (p.start, p.end) == (first, date(2019, 11, 5))                    # clipped to the data
    for bad in [(date(2020, 1, 5), date(2019, 12, 20)), (date(2020, 1, 10), date(2020, 1, 21)),
                (date(2019, 10, 1), date(2019, 10, 31))]:
        p, why = model_period(bad, "x", t, (first, t))
        assert p is None and why
    assert model_period(None, "x", t)[0] is None


@pytest.mark.parametrize("question, phrase", [
    ("How did I sleep over the holidays?", "over the holidays"),
    ("How much did I walk during my vacation?", "during my vacation"),
    ("Was my stress high before the deadline?", "before the deadline"),
    ("steps last semester", "last semester"),
    ("Did I fall asleep faster this week?", None),
    ("How did my deep sleep change over the past 2 weeks?", None),
    ("How did I sleep in March?", None),
])
def test_unrecognised_period_phrases(question, phrase):
    assert unrecognised_period(question) == phrase


# --------------------------------------------------------------------------- "over the holidays"

HOLIDAYS = "How did I sleep over the holidays?"


def test_holidays_offline_is_named_as_not_understood(catalog):
    p = parse_offline(HOLIDAYS, T, catalog)
    assert (p.window_days, p.reference_day) == (7, T)                  # the default period (§8)
    assert p.period_notes == ["'over the holidays' was not understood; this answer covers "
                              "2020-01-14 to 2020-01-20 (7 days)"]


def test_holidays_with_a_model_gets_its_validated_period(model, catalog):
    stub, client = model
    stub.queue(reply_json({"metrics": ["total_sleep_duration"], "category": "Exploratory Analysis",
                           "openness": 0.8, "period_start": "2019-12-20", "period_end": "2020-01-05"}))
    p = parse(HOLIDAYS, T, catalog, client=client, data_range=(date(2019, 11, 1), T))
    assert (p.resolved_period.start, p.reference_day, p.window_days, p.ref_offset) == (
        date(2019, 12, 20), date(2020, 1, 5), 17, -15)
    assert p.sources["period"] == "model" and p.period.label == "over the holidays"
    assert p.period_notes == ["'over the holidays' is the model's reading: 2019-12-20 to 2020-01-05 (17 days) "
                              "(the period rules do not date it)"]
    data = _data(stub)
    assert data["time_expression"] == "over the holidays" and data["as_of"] == "2020-01-20"
    assert "period_start" in json.dumps(stub.bodies()[-1]["response_format"])


def test_holidays_with_an_invalid_model_period_is_not_understood(model, catalog):
    stub, client = model
    stub.queue(reply_json({"metrics": ["total_sleep_duration"], "category": "Exploratory Analysis",
                           "openness": 0.8, "period_start": "2020-12-20", "period_end": "2021-01-05"}))
    p = parse(HOLIDAYS, T, catalog, client=client, data_range=(date(2019, 11, 1), T))
    assert (p.window_days, p.reference_day) == (7, T) and p.sources["period"] == "offline"
    assert p.period_notes[0].startswith("'over the holidays' was not understood; this answer covers 2020-01-14 to")
    assert "after the reference day 2020-01-20" in p.period_notes[0]


# --------------------------------------------------------------------------- in the answer (wag ask)


@pytest.fixture
def wh(built_db, monkeypatch):
    monkeypatch.setenv("WAG_DB", str(built_db))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return built_db


def _ask(*args):
    from wag_cli.cli import app

    return CliRunner().invoke(app, ["ask", HOLIDAYS, "--subject", "pmdata:p01", "--as-of", "2020-01-20", "--json", *args])


def test_ask_holidays_offline_names_the_phrase(wh):
    res = _ask("--offline")
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert "'over the holidays' was not understood; this answer covers 2020-01-14 to 2020-01-20" in out["answer"]
    assert out["parse"]["sources"]["period"] == "offline"


def test_ask_holidays_with_a_model_states_its_reading(wh, monkeypatch, stub_openai):
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    monkeypatch.setenv("OPENAI_BASE_URL", stub_openai.base_url)
    monkeypatch.setenv("WAG_LLM_CACHE", "off")
    monkeypatch.setenv("WAG_LLM_RETRIES", "0")
    stub_openai.queue(reply_json({"metrics": ["total_sleep_duration"], "category": "Exploratory Analysis",
                                  "openness": 0.8, "period_start": "2019-12-24", "period_end": "2020-01-01"}),
                      reply_text("You slept about as usual over the holidays."))
    res = _ask()
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["parse"]["period_start"] == "2019-12-24" and out["parse"]["period_end"] == "2020-01-01"
    assert out["parse"]["sources"]["period"] == "model"
    assert out["answer"].startswith("Note: 'over the holidays' is the model's reading: 2019-12-24 to 2020-01-01 (9 days)")
    assert "You slept about as usual" in out["answer"]


# --------------------------------------------------------------------------- wag eval parse, side by side


def test_eval_parse_reports_both_paths_side_by_side(tmp_path, monkeypatch, stub_openai):
    """`wag eval parse --questions FILE`: the offline parser and the model path on the same rows; a
    model that pads every reply cannot lower the metric score below the offline one."""
    from wag_cli.cli import app

    rows = [{"q": "How many steps did I take yesterday?", "metrics": ["steps_taken"], "window": 1, "ref_offset": -1,
             "type": "Data Retrieval"},
            {"q": "Did I get enough shut-eye last week?", "metrics": ["asleep_duration"], "window": 7,
             "type": "Data Retrieval"}]
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    monkeypatch.setenv("OPENAI_BASE_URL", stub_openai.base_url)
    monkeypatch.setenv("WAG_LLM_CACHE", "off")
    monkeypatch.setenv("WAG_LLM_RETRIES", "0")
    monkeypatch.delenv("WAG_CHAT_MODEL", raising=False)
    stub_openai.default_reply = reply_json({"metrics": ["asleep_duration", "steps_taken"],
                                            "category": "Data Retrieval", "openness": 0.2})
    res = CliRunner().invoke(app, ["eval", "parse", "--questions", str(path), "--as-of", "2020-01-20", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    model = next(n for n in out["parsers"] if n.startswith("model:"))
    assert out["n"] == 2 and out["parsers"] == ["offline", model]
    off, mod = out["figures"]["offline"]["all"], out["figures"][model]["all"]
    # offline: steps yes, shut-eye no (1/2); model path: steps kept (confident), shut-eye padded -> both
    # ids offered and the question names neither exactly, so the set is {asleep, steps}: still 1/2
    assert (off["metric_exact"], mod["metric_exact"]) == (0.5, 0.5)
    assert off["window"] == mod["window"] == 1.0 and off["reference_day"] == mod["reference_day"] == 1.0
    assert out["sources"]["period"] == {"offline": 2} and out["sources"]["metrics"] == {"offline": 1, "model": 1}
    res = CliRunner().invoke(app, ["eval", "parse", "--questions", str(path), "--offline", "--json"])
    assert json.loads(res.stdout)["parsers"] == ["offline"]
