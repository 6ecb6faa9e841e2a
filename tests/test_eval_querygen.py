"""QueryGen (DESIGN.md §10): offline phrasings are deterministic for a seed, openness lies in the
category's range, every category appears; the model path validates replies, rejects a question
about the wrong metrics and regenerates it, retries an invalid reply, and falls back when the model
keeps failing (stub server only)."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from stub_openai import reply_json, reply_text
from wag_cli.catalog import load_catalog
from wag_cli.categories import CATEGORY_OPENNESS
from wag_cli.eval.querygen import generate, load_phrasings, model_question, offline_question
from wag_cli.eval.tuples import QueryTuple
from wag_cli.query.offline import parse_offline

WINDOWS = [1, 7, 14, 30, None]


def _tuples(n_single: int = 12, n_multi: int = 12) -> list[QueryTuple]:
    out = []
    singles = ["steps_taken", "resting_heart_rate", "deep_sleep_duration", "mood"]
    for i in range(n_single):
        out.append(QueryTuple(f"s{i}", "single", "pmdata", "pmdata:p01", (singles[i % 4],),
                              date(2020, 1, 1) + timedelta(days=i), WINDOWS[i % 5],
                              ["low", "medium", "high", "missing"][i % 4], 42, len(out) + 1))
    for i in range(n_multi):
        ms = ("steps_taken", "total_sleep_duration") if i % 2 else ("resting_heart_rate", "mental_stress", "mood")
        out.append(QueryTuple(f"m{i}", "multi", "lifesnaps", "lifesnaps:x", ms,
                              date(2021, 6, 1) + timedelta(days=i), WINDOWS[i % 5], None, 42, len(out) + 1))
    return out


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def test_offline_is_deterministic_for_a_seed(catalog):
    ts = _tuples()
    a = generate(ts, seed=7, catalog=catalog)
    b = generate(ts, seed=7, catalog=catalog)
    c = generate(ts, seed=8, catalog=catalog)
    assert [(r["question"], r["category"], r["openness"], r["query_id"]) for r in a] == \
           [(r["question"], r["category"], r["openness"], r["query_id"]) for r in b]
    assert [r["question"] for r in a] != [r["question"] for r in c]
    assert all(r["generator"] == "offline" and r["gen_status"] == "offline" for r in a)


def test_openness_in_range_and_every_category_appears(catalog):
    rows = generate(_tuples(), seed=3, catalog=catalog)
    assert {r["category"] for r in rows} == set(CATEGORY_OPENNESS)
    for kind in ("single", "multi"):       # each kind alone, with 12 tuples, covers the nine
        assert {r["category"] for r in rows if r["kind"] == kind} == set(CATEGORY_OPENNESS)
    for r in rows:
        lo, hi = CATEGORY_OPENNESS[r["category"]]
        assert lo <= r["openness"] <= hi
        assert r["question"] and r["question"][0].isupper()


def test_every_category_has_phrasings_for_both_kinds():
    data = load_phrasings()
    assert set(data["categories"]) == set(CATEGORY_OPENNESS)
    for cat, kinds in data["categories"].items():
        assert len(kinds["single"]) >= 2 and len(kinds["multi"]) >= 2, cat


def test_period_phrases_say_the_window_and_day(catalog):
    """Each period phrase, read by the offline parser as of the reference day, gives the window and
    the reference day of the tuple (a one-day window may name the date itself)."""
    t0 = date(2020, 3, 15)
    for label, phrases in load_phrasings()["periods"].items():
        window = None if label == "all" else int(label)
        for p in phrases:
            text = p.format(date=t0.isoformat(), date_long=f"{t0:%B} {t0.day}, {t0.year}")
            parsed = parse_offline(f"What was my resting heart rate {text}?", t0, catalog)
            assert parsed.window_days == window, text
            assert parsed.reference_day == t0, text


def _stub_client(stub, monkeypatch):
    from wag_cli.llm import get_client

    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", stub.base_url)
    monkeypatch.setenv("WAG_LLM_CACHE", "off")
    monkeypatch.setenv("WAG_LLM_RETRIES", "0")     # an invalid reply costs one QueryGen attempt
    return get_client()


def test_model_wrong_metrics_rejected_and_invalid_json_retried(stub_openai, monkeypatch, catalog):
    client = _stub_client(stub_openai, monkeypatch)
    t = _tuples(1, 1)[1]                            # multi: resting_heart_rate, mental_stress, mood
    good = {"question": "Does my stress go along with my resting pulse and mood lately?",
            "metrics": ["mood", "resting_heart_rate", "mental_stress"], "category": "Metric Relationships",
            "openness": 0.5}
    stub_openai.queue(
        reply_json({**good, "metrics": ["resting_heart_rate", "mood"]}),   # wrong metric set
        reply_text("Sure! Here is a question: ..."),                      # not JSON
        reply_json(good),
    )
    offline = offline_question(t, "Metric Relationships", 1, catalog)
    gen = model_question(t, "Metric Relationships", 0.5, client, catalog, offline)
    assert gen.gen_status == "model" and gen.gen_attempts == 3
    assert gen.question == good["question"]
    bodies = stub_openai.bodies()
    assert len(bodies) == 3
    second = bodies[1]["messages"][-1]["content"]
    assert "previous_rejection" in second and "mental_stress" in second   # the rejection reason was sent
    assert client.usage["requests"] == 3


def test_model_failing_falls_back_to_offline_phrasing(stub_openai, monkeypatch, catalog):
    client = _stub_client(stub_openai, monkeypatch)
    t = _tuples(1, 0)[0]
    bad = {"question": "How many steps did I take?", "metrics": ["distance_traveled"],
           "category": "Data Retrieval", "openness": 0.2}
    stub_openai.queue(reply_json(bad), reply_json({**bad, "openness": 0.9}), reply_json(bad))
    offline = offline_question(t, "Data Retrieval", 5, catalog)
    gen = model_question(t, "Data Retrieval", 0.2, client, catalog, offline)
    assert gen.gen_status == "fallback" and gen.gen_attempts == 3
    assert (gen.question, gen.phrasing_id) == offline
    assert "failed 3 time" in gen.gen_note
    assert len(stub_openai.bodies()) == 3
