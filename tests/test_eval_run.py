"""`wag eval run` (DESIGN.md §8, §10) on the real-excerpt build: every condition of every experiment is
stored with its context and prompt size; a re-run skips what is stored; an interrupted run keeps the
answers stored so far and a second run completes it."""

from __future__ import annotations

import json
import math

import duckdb
import pytest
from typer.testing import CliRunner

from wag_cli import prompts
from wag_cli.cli import app
from wag_cli.eval.run import EXPERIMENTS
from wag_cli.answer.text import DISCLAIMER
from wag_cli.llm import build_messages

N_CONDITIONS = sum(len(c) for c in EXPERIMENTS.values())


@pytest.fixture
def env(built_db, tmp_path, monkeypatch):
    monkeypatch.setenv("WAG_DB", str(built_db))
    monkeypatch.setenv("WAG_EVAL_DB", str(tmp_path / "eval.duckdb"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return tmp_path / "eval.duckdb"


def _invoke(*args):
    res = CliRunner().invoke(app, list(args))
    assert res.exit_code == 0, res.output
    return res


def test_run_stores_every_condition_and_skips_stored(env):
    _invoke("eval", "queries", "--n", "3", "--offline", "--jsonl", str(env.parent / "q.jsonl"))
    assert len((env.parent / "q.jsonl").read_text().splitlines()) == 3
    out = json.loads(_invoke("eval", "run", "--limit", "2", "--offline", "--json").stdout)
    # Exp-G / Exp-L answer only the selected queries (DESIGN.md §10): the stored selection says which
    con = duckdb.connect(str(env), read_only=True)
    first2 = [r[0] for r in con.execute("select query_id from eval_queries order by tuple_order, query_id limit 2").fetchall()]
    n_sel = {e: n for e, n in con.execute("select experiment, count(*) filter (where selected) from eval_selection"
                                          " where list_contains(?, query_id) group by 1", [first2]).fetchall()}
    con.close()
    expected = 2 * len(EXPERIMENTS["main"]) + sum(n_sel.get(e, 0) * len(EXPERIMENTS[e]) for e in ("exp_g", "exp_l"))
    assert out["stored"] == expected and out["skipped_already_stored"] == 0 and out["errors"] == 0
    again = json.loads(_invoke("eval", "run", "--limit", "2", "--offline", "--json").stdout)
    assert again["stored"] == 0 and again["skipped_already_stored"] == expected

    con = duckdb.connect(str(env), read_only=True)
    rows = con.execute("select a.*, q.question, q.metrics as q_metrics, q.window_days as q_window"
                       " from eval_answers a join eval_queries q using (query_id)").df()
    con.close()
    assert len(rows) == expected
    for exp, conds in EXPERIMENTS.items():
        for cond, method, rank_by in conds:
            sub = rows[(rows["experiment"] == exp) & (rows["condition"] == cond)]
            assert len(sub) == (2 if exp == "main" else n_sel.get(exp, 0)), (exp, cond)
            for r in sub.itertuples():
                assert r.answer and r.source == "offline"
                ctx = json.loads(r.context)
                assert ctx["method"] == method and ctx["ranked_by"] == rank_by == (r.rank_by if isinstance(r.rank_by, str) else None)
                if method == "wag":
                    assert ctx["rank_by"] == rank_by
                # retrieval used the gold fields, the parse of the text is recorded beside them
                assert ctx["retrieval"]["metrics"] == list(r.q_metrics)
                assert "metrics" in ctx["parse"]
                assert {n["metric_id"] for n in ctx["nodes"] if n["role"] == "primary"} <= set(r.q_metrics)
                if method in ("base", "rag"):
                    assert ctx["edges"] == [] and all(n["role"] == "primary" for n in ctx["nodes"])
                if method == "static":   # StaticGraph: ranked by the prior, no personal signal
                    assert all(n.get("w_final") is None and n.get("r_s_signed") is None
                               for n in ctx["nodes"] if n["role"] == "neighbour")
                assert len(ctx["edges"]) == sum(n["role"] == "neighbour" for n in ctx["nodes"])
                # prompt size: the compact, budgeted prompt of the answer step (wag_cli.answer.context), whose
                # fixed part is the method's instructions in the build_messages frame
                system, instruction = prompts.answer_prompt(method)
                fixed = math.ceil(sum(len(m["content"]) for m in build_messages(
                    system, instruction, "", data_format="text")) / 4)
                # FullContext is never trimmed (DESIGN.md §10): only the others fit the budget
                assert fixed < r.prompt_tokens and (method == "full" or r.prompt_tokens <= 4096 - 640)


def test_interrupted_run_keeps_stored_answers(env):
    from wag_cli.catalog import load_catalog
    from wag_cli.db import warehouse
    from wag_cli.eval.run import RunStats, answer_query_tasks, group_by_query, plan
    from wag_cli.eval.store import connect_eval, read_queries

    _invoke("eval", "queries", "--n", "2", "--offline")
    con_e = connect_eval(env)
    try:
        queries = read_queries(con_e)[:1]
        stats = RunStats()
        tasks = plan(con_e, queries, ["main"], stats)
        assert len(tasks) == len(EXPERIMENTS["main"])

        def stop_after_two(_task, seen=[]):
            seen.append(_task)
            if len(seen) == 2:
                raise KeyboardInterrupt

        with warehouse() as con, pytest.raises(KeyboardInterrupt):
            for group in group_by_query(tasks):
                answer_query_tasks(con, con_e, group, catalog=load_catalog(con), stats=stats, on_done=stop_after_two)
        assert con_e.execute("select count(*) from eval_answers").fetchone()[0] == 2
        left = plan(con_e, queries, ["main"], RunStats())
        assert [t.condition for t in left] == [c for c, _m, _r in EXPERIMENTS["main"][2:]]
    finally:
        con_e.close()


def test_model_conditions_use_the_model_and_report_usage(env, stub_openai, monkeypatch):
    from stub_openai import reply_text

    _invoke("eval", "queries", "--n", "1", "--offline")
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", stub_openai.base_url)
    monkeypatch.setenv("WAG_LLM_CACHE", "off")
    monkeypatch.setenv("WAG_LLM_RETRIES", "0")
    stub_openai.default_reply = reply_text("Your numbers look steady this week.")
    out = json.loads(_invoke("eval", "run", "--experiment", "main", "--json").stdout)
    assert out["stored"] == len(EXPERIMENTS["main"]) and out["errors"] == 0
    # one QueryParse call (its reply is unusable, so the offline parse is recorded) + one per condition
    assert out["model_usage"]["requests"] == 1 + len(EXPERIMENTS["main"])
    con = duckdb.connect(str(env), read_only=True)
    rows = con.execute("select condition, answer, source, context from eval_answers order by condition").fetchall()
    con.close()
    assert [r[0] for r in rows] == sorted(c for c, _m, _r in EXPERIMENTS["main"])
    for cond, answer, source, context in rows:
        # the reply, then the same "not a diagnosis" line as offline answers (issue 11 item 5)
        assert answer == "Your numbers look steady this week.\n\n" + DISCLAIMER and source.startswith("model:")
        assert "fallback_reason" in json.loads(context)["parse"]
    # every condition got the same frame: the answer prompt of its method, the question, the subgraph
    chats = [b for b in stub_openai.bodies() if "response_format" not in b]
    assert len(chats) == len(EXPERIMENTS["main"])
    assert all("Data block" in b["messages"][1]["content"] for b in chats)


def test_conditions_answer_the_question_shape_like_wag_ask(env):
    """The evaluation answers as `wag ask` does (the question's analysis included), so a gold
    correlation question gets the pair's as-of correlation under every condition (issue 8 item 3)."""
    _invoke("eval", "gold", "--n", "5")
    con = duckdb.connect(str(env), read_only=True)
    try:
        kinds = dict(con.execute("select query_id, gold_kind from eval_queries where kind = 'gold'").fetchall())
    finally:
        con.close()
    assert "spearman" in kinds.values()
    _invoke("eval", "run", "--experiment", "main", "--offline")
    _invoke("eval", "gold", "--score")
    con = duckdb.connect(str(env), read_only=True)
    try:
        rows = con.execute("""
            select s.condition, s.correct, s.expected, a.answer
            from eval_gold_scores as s
            join eval_queries as q using (query_id)
            join eval_answers as a on a.query_id = s.query_id and a.condition = s.condition and a.experiment = 'main'
            where q.gold_kind = 'spearman'""").fetchall()
    finally:
        con.close()
    assert {r[0] for r in rows} == {c for c, _m, _r in EXPERIMENTS["main"]}
    for condition, correct, expected, answer in rows:
        assert f"{expected:+.2f}" in answer, (condition, expected, answer[:400])
        assert correct, condition


def test_a_rebuilt_warehouse_is_flagged(env, built_db, tmp_path, monkeypatch):
    """Stored queries and answers from an older build are kept (resumable) but the run says so."""
    import os
    import shutil
    import time as _time

    _invoke("eval", "queries", "--n", "2", "--offline")
    copy = tmp_path / "rebuilt.duckdb"
    shutil.copy(built_db, copy)
    later = _time.time() + 120
    os.utime(copy, (later, later))
    monkeypatch.setenv("WAG_DB", str(copy))
    res = CliRunner().invoke(app, ["eval", "run", "--experiment", "main", "--limit", "1", "--offline"])
    assert res.exit_code == 0, res.output
    assert "the warehouse was rebuilt" in res.output


def test_a_query_whose_subject_is_not_in_the_warehouse_is_an_error(env):
    """A new-user review: queries made from another build were "answered" with "no data recorded" and
    counted as stored, 0 errors. They are now errors naming the subject, as in `wag ask`."""
    _invoke("eval", "queries", "--n", "2", "--offline")
    con = duckdb.connect(str(env))
    (qid,) = con.execute("select min(query_id) from eval_queries").fetchone()
    con.execute("update eval_queries set subject_id = 'pmdata:p99' where query_id = ?", [qid])
    con.close()
    out = json.loads(_invoke("eval", "run", "--limit", "2", "--experiment", "main", "--offline", "--json").stdout)
    n_main = len(EXPERIMENTS["main"])
    assert out["errors"] == n_main and out["stored"] == n_main
    con = duckdb.connect(str(env), read_only=True)
    errors = con.execute("select distinct error from eval_answers where query_id = ?", [qid]).fetchall()
    con.close()
    assert len(errors) == 1 and "unknown subject 'pmdata:p99'" in errors[0][0]
