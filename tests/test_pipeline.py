"""One question -> answer path (issue 25): `wag eval run` produces its answers through the same
functions as `wag ask` (wag_cli.pipeline), so for an evaluation question whose parse agrees with the
query's gold fields, the stored answer of a condition and `wag ask --method <it>` are byte-identical."""

from __future__ import annotations

import json
from datetime import date

import duckdb
from typer.testing import CliRunner

from wag_cli.catalog import load_catalog
from wag_cli.cli import app
from wag_cli.query.offline import parse_offline


def _invoke(*args):
    res = CliRunner().invoke(app, list(args))
    assert res.exit_code == 0, res.output
    return res


def test_eval_run_and_wag_ask_give_identical_answers(built_db, tmp_path, monkeypatch):
    monkeypatch.setenv("WAG_DB", str(built_db))
    monkeypatch.setenv("WAG_EVAL_DB", str(tmp_path / "eval.duckdb"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    _invoke("eval", "queries", "--n", "16", "--seed", "3", "--offline")
    with duckdb.connect(str(built_db), read_only=True) as con:
        catalog = load_catalog(con)
    # QueryGen draws each query's openness inside its category's range; `wag ask` uses the parse's
    # (the range's midpoint). Store the parse's openness on the queries whose parse is otherwise their
    # gold reading, so that both paths retrieve the same neighbour budget.
    with duckdb.connect(str(tmp_path / "eval.duckdb")) as con:
        for qid, question, metrics, ref, window in con.execute(
                "select query_id, question, metrics, reference_day, window_days from eval_queries").fetchall():
            parsed = parse_offline(question, ref, catalog)
            if list(parsed.metrics) == list(metrics) and parsed.window_days == window and parsed.reference_day == ref:
                con.execute("update eval_queries set openness = ? where query_id = ?", [parsed.openness, qid])
    _invoke("eval", "run", "--offline", "--experiment", "main")
    with duckdb.connect(str(tmp_path / "eval.duckdb"), read_only=True) as con:
        rows = con.execute(
            "select q.question, q.subject_id, q.metrics, q.reference_day, q.window_days, q.openness, a.condition, a.answer "
            "from eval_answers a join eval_queries q using (query_id) "
            "where a.experiment = 'main' and a.condition in ('base', 'rag', 'wag') and a.answer is not null "
            "order by q.query_id, a.condition").fetchall()
    compared = 0
    for question, subject, metrics, ref, window, openness, condition, stored in rows:
        parsed = parse_offline(question, ref, catalog)
        # only questions whose own parse is the gold reading (metrics, period, openness = neighbour budget):
        # then `wag ask` asks exactly what the evaluation asked
        if (list(parsed.metrics) != list(metrics) or parsed.window_days != window
                or parsed.reference_day != ref or abs(parsed.openness - float(openness)) > 1e-9
                or parsed.comparison is not None):
            continue
        out = json.loads(_invoke("ask", "--json", "--offline", "--method", condition, "--subject", subject,
                                 "--as-of", ref.isoformat() if isinstance(ref, date) else str(ref),
                                 question).stdout)
        assert out["answer"] == stored, (question, condition)
        compared += 1
    assert compared >= 6, f"only {compared} answers could be compared; widen the query set"
