"""Compact, budgeted answer prompts (wag_cli.answer.context; DESIGN.md §10 prompts; issue 11 item 3).

Hand-made subgraphs check the format and the trim order; the real excerpts (``built_db``) check that
every method's prompt fits the default budget and that WAG's is never larger than FullContext's.
"""

from __future__ import annotations

import json
import math
from datetime import date, timedelta

import pytest

from wag_cli.answer.context import DEFAULT_BUDGET, _messages, answer_context, estimate_tokens, full_context
from wag_cli.retrieve import Node, NodeData, Subgraph

REF = date(2020, 3, 31)


def _node(mid, role, values, *, weight=None, primary="sleep_duration", desc="", usual=(50.0, 10.0)):
    days = [REF - timedelta(days=len(values) - 1 - i) for i in range(len(values))]
    daily = [{"day": d, "value": v, "value_text": None, "z": abs(v - usual[0]) / usual[1]} for d, v in zip(days, values)]
    data = NodeData(n_history_days=100, usual_mean=usual[0], usual_sd=usual[1], n_window_days=len(values),
                    window_mean=sum(values) / len(values), window_min=min(values), window_max=max(values),
                    zeta=0.5, daily=daily)
    return Node(metric_id=mid, name=mid.replace("_", " "), unit="minutes", category="Sleep", data_kind="numeric",
                role=role, primary_node=mid if role == "primary" else primary, rank=1, reason="",
                description=desc, w_final=weight, rank_weight=weight, relationship=f"{mid} goes with sleep",
                data=data)


def _sg(nodes, window, method="wag"):
    return Subgraph(subject_id="pmdata:p01", method=method, reference_day=REF, window_days=window, openness=0.5,
                    budget=2, nodes=nodes)


def _rows(text: str, section: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith(section + " ("))
    out = []
    for ln in lines[start + 1:]:
        if not ln[:4].isdigit():
            break
        out.append(ln)
    return out


def test_one_line_per_day_per_metric_and_the_estimate():
    sg = _sg([_node("sleep_duration", "primary", [400, 410, 420]),
              _node("steps", "neighbour", [5000, 7000], weight=0.4)], 7)
    ctx = answer_context("How did I sleep?", sg)
    rows = _rows(ctx.text, "daily")
    assert len(rows) == 5                              # 3 + 2 days
    assert f"{REF} | sleep_duration | 420 | 37" in rows  # |420 - 50| / 10 = 37
    assert ctx.trimmed == [] and "trimmed" not in ctx.text
    assert ctx.tokens == math.ceil(sum(len(m["content"]) for m in ctx.messages) / 4)
    assert "{" not in ctx.text.split("metrics (", 1)[1]   # tables, not JSON
    assert ctx.text.splitlines()[0] == "question: How did I sleep?"
    assert ctx.messages[1]["content"].index("question: How did I sleep?") > ctx.messages[1]["content"].index("Rules:")


def test_long_window_gets_weekly_summaries():
    values = [float(v) for v in range(30, 60)]           # 30 days, 30..59
    sg = _sg([_node("sleep_duration", "primary", values)], 30, method="base")
    ctx = answer_context("How did I sleep this month?", sg)
    assert "daily (" not in ctx.text
    weekly = _rows(ctx.text, "weekly")
    # blocks of 7 days ending on REF: the last block is days 53..59 -> mean 56, min 53, max 59
    last = [r for r in weekly if r.startswith(str(REF - timedelta(days=6)))]
    assert last == [f"{REF - timedelta(days=6)} | sleep_duration | 7 | 56 | 53 | 59 | {REF} (59, z 0.9)"]   # |59 - 50| / 10
    assert sum(int(r.split(" | ")[2]) for r in weekly) == 30


def test_budget_trims_lowest_weight_neighbours_daily_rows_first():
    long_desc = "A description of the metric. " * 20
    sg = _sg([_node("sleep_duration", "primary", [400] * 7, desc=long_desc),
              _node("high_weight", "neighbour", [1.0] * 7, weight=0.9, desc=long_desc),
              _node("low_weight", "neighbour", [2.0] * 7, weight=0.1, desc=long_desc)], 7)
    full = answer_context("q", sg)
    one_less = full.tokens - 20                         # a little too small: one neighbour's rows go
    ctx = answer_context("q", sg, budget=one_less)
    assert ctx.tokens <= one_less
    assert ctx.trimmed == ["daily rows of neighbour low_weight"]
    metrics_in_rows = {r.split(" | ")[1] for r in _rows(ctx.text, "daily")}
    assert metrics_in_rows == {"sleep_duration", "high_weight"}
    assert "trimmed (to fit" in ctx.text and "low_weight" in ctx.text.splitlines()[-1]
    # the instructions' size plus room for little more than the metrics table (was 900 = 869 + 31)
    tight_budget = estimate_tokens(_messages("wag", "")) + 31
    tight = answer_context("q", sg, budget=tight_budget)
    assert tight.tokens <= tight_budget and tight.trimmed[:2] == ["daily rows of neighbour low_weight",
                                                         "daily rows of neighbour high_weight"]
    with pytest.raises(ValueError, match="cannot hold"):
        answer_context("q", sg, budget=50)


def test_cap_bounds_the_prompt():
    sg = _sg([_node("sleep_duration", "primary", [400] * 7),
              _node("steps", "neighbour", [5000] * 7, weight=0.5, desc="x " * 300)], 7)
    free = answer_context("q", sg)
    capped = answer_context("q", sg, cap=free.tokens - 50)
    assert capped.tokens <= free.tokens - 50 and capped.trimmed


def test_estimate_of_a_string():
    assert estimate_tokens("abcde") == 2 and estimate_tokens([{"content": "abcd"}, {"content": None}]) == 1


QUESTIONS = [("How was my sleep this week?", 7), ("How did my sleep relate to my stress over the past 30 days?", 30)]


@pytest.mark.parametrize("question, days", QUESTIONS)
def test_real_prompts_fit_the_budget_and_wag_is_not_larger_than_full(built_db, monkeypatch, question, days):
    import duckdb

    from wag_cli.pipeline import answer_question
    from wag_cli.catalog import load_catalog

    monkeypatch.setenv("WAG_DB", str(built_db))
    monkeypatch.setenv("WAG_LLM_CACHE", "off")
    sizes = {}
    for method in ("base", "rag", "wag"):
        res = answer_question(question, "pmdata:p01", offline=True, method=method)
        assert res.subgraph.window_days == days
        sizes[method] = answer_context(question, res.subgraph, res.analysis).tokens
    con = duckdb.connect(str(built_db), read_only=True)
    try:
        fsg = full_context(con, res.subgraph, load_catalog(con))
        n_with_data = con.execute(
            "select count(distinct metric_id) from metric_values where subject_id = 'pmdata:p01' "
            "and day between ? and ?", [res.subgraph.reference_day - timedelta(days=days - 1),
                                        res.subgraph.reference_day]).fetchone()[0]
    finally:
        con.close()
    assert len(fsg.nodes) == n_with_data
    full = answer_context(question, fsg, res.analysis, method="full").tokens
    assert all(v <= DEFAULT_BUDGET for v in sizes.values()) and full <= DEFAULT_BUDGET
    assert sizes["base"] <= sizes["rag"] <= sizes["wag"]
    capped = answer_context(question, res.subgraph, res.analysis, cap=full).tokens
    assert capped <= full


class _Recorder:
    """A client stand-in recording the data block; ``cached`` mimics a reply-cache hit."""

    chat_model = "recorder"

    def __init__(self, cached=False):
        self.last_from_cache = cached

    def chat_text(self, system, instruction, data, data_format="json"):
        from wag_cli.llm import build_messages

        self.messages = build_messages(system, instruction, data, data_format=data_format)
        return "Steady."


def test_model_answer_is_capped_by_full_context_and_notes_the_cache():
    from wag_cli.answer.text import DISCLAIMER
    from wag_cli.answer.model import model_answer

    long_desc = "Background on the metric. " * 40
    sg = _sg([_node("sleep_duration", "primary", [400] * 7, desc=long_desc),
              _node("steps", "neighbour", [5000] * 7, weight=0.5, desc=long_desc)], 7)
    full = _sg([_node("sleep_duration", "primary", [400] * 7)], 7, method="full")
    full_tokens = answer_context("q", full, method="full").tokens
    assert answer_context("q", sg).tokens > full_tokens                 # uncapped WAG would be larger
    rec = _Recorder(cached=True)
    ans = model_answer("q", sg, rec, full=full)
    assert ans.prompt_tokens <= full_tokens and ans.prompt_tokens == estimate_tokens(rec.messages)
    assert ans.trimmed and "prompt trimmed" in ans.note and "reply cache" in ans.note and ans.cached
    assert ans.text == "Steady.\n\n" + DISCLAIMER
    plain = model_answer("q", sg, _Recorder())
    assert plain.cached is False and "reply cache" not in (plain.note or "")


# --------------------------------------------------------------------------- QueryParse shortlist


def _metric(mid, name, cat, aliases=(), sources="x"):
    from wag_cli.catalog import Metric

    return Metric(metric_id=mid, name=name, category=cat, unit="", data_kind="numeric", description="",
                  normal_range="", recommendations="", aliases=tuple(aliases), origin="dataset", data_sources=sources)


def test_shortlist_starts_with_the_matched_metric_then_its_category():
    from wag_cli.query.shortlist import shortlist

    cat = {m.metric_id: m for m in [
        _metric("steps_taken", "Steps taken", "Activity", ["steps"]),
        _metric("deep_sleep_duration", "Deep sleep duration", "Sleep", ["deep sleep"]),
        _metric("rem_sleep_duration", "REM sleep duration", "Sleep", ["rem sleep"]),
        _metric("mood", "Mood", "Mental"),
        *[_metric(f"other_{i}", f"Other thing {i}", "Lifestyle") for i in range(30)]]}
    ids = [c["id"] for c in shortlist("How was my deep sleep this week?", cat, limit=6)]
    assert len(ids) == 6 and ids[0] == "deep_sleep_duration" and ids[1] == "rem_sleep_duration"
    assert len(set(ids)) == 6 and set(ids) <= set(cat)


@pytest.mark.parametrize("question", [q for q, _ in QUESTIONS])
def test_real_parse_prompt_fits_the_budget(built_db, question):
    import duckdb

    from wag_cli.catalog import load_catalog
    from wag_cli.query.metrics import match_metrics
    from wag_cli.query.model import SHORTLIST, parse_messages

    con = duckdb.connect(str(built_db), read_only=True)
    try:
        catalog = load_catalog(con)
    finally:
        con.close()
    msgs = parse_messages(question, date(2020, 3, 31), catalog)
    assert estimate_tokens(msgs) <= DEFAULT_BUDGET
    user = msgs[1]["content"]
    for hit in match_metrics(question, catalog):                     # the offline matches are offered
        assert f'"id": "{hit["metric_id"]}"' in user
    data = json.loads(user.split("```json", 1)[1].rsplit("```", 1)[0])
    assert len(data["catalog"]) == SHORTLIST < len(catalog)          # a shortlist, not the catalog
    assert list(data)[-1] == "question"                               # the question comes last
