"""The judges of `wag eval judge` (DESIGN.md §10): the rubric judge on a small hand-made warehouse
(numbers checked against values worked out by hand here), and the model judge against the local stub
server (anonymised prompts, non-permutation replies retried then stored invalid, position swap)."""

from __future__ import annotations

import json
from datetime import date, timedelta

import duckdb
import pytest

from stub_openai import reply_json
from wag_cli.eval import judge as J
from wag_cli.eval import rubric as R
from wag_cli.eval.store import connect_eval

SUBJECT = "demo:s1"
DAY0 = date(2020, 1, 1)
# deep sleep minutes on 2020-01-01 .. 2020-01-10
SLEEP = [30, 40, 50, 60, 35, 45, 55, 65, 70, 20]
# by hand: the 7 days ending 2020-01-10 are 60 35 45 55 65 70 20 -> sum 350, mean 50.0;
# all 10 days: sum 470, mean 47.0; largest |v - 47| in the window: 20 (2020-01-10), 70 (2020-01-09)
WINDOW_MEAN, USUAL_MEAN = 50.0, 47.0
STEPS = [8000 + 100 * i for i in range(10)]


@pytest.fixture
def tiny_warehouse(tmp_path):
    """A warehouse with just the tables the rubric reads (no wag_retrieve macro)."""
    path = tmp_path / "tiny.duckdb"
    con = duckdb.connect(str(path))
    con.execute("create table metric_values (dataset varchar, subject_id varchar, metric_id varchar, day date,"
                " value double, value_text varchar)")
    for i in range(10):
        d = DAY0 + timedelta(days=i)
        con.execute("insert into metric_values values ('demo', ?, 'deep_sleep_duration', ?, ?, null)",
                    [SUBJECT, d, SLEEP[i]])
        con.execute("insert into metric_values values ('demo', ?, 'steps_taken', ?, ?, null)", [SUBJECT, d, STEPS[i]])
    con.execute("create table nodes (metric_id varchar, name varchar, unit varchar, description varchar,"
                " normal_range varchar, recommendations varchar, aliases varchar)")
    con.execute("insert into nodes values ('deep_sleep_duration', 'Deep sleep duration', 'minutes',"
                " 'Slow-wave sleep.', 'Adults: about 13-23 % of sleep time.', 'Keep a regular bedtime.', 'deep sleep|sws')")
    con.execute("insert into nodes values ('steps_taken', 'Steps taken', 'steps', 'Steps per day.', null, null, 'steps|walking')")
    con.execute("create table edges (node_a varchar, node_b varchar, w_prior double, confidence double, relationship varchar)")
    con.execute("insert into edges values ('deep_sleep_duration', 'steps_taken', 0.4, 0.8, 'Activity deepens sleep.')")
    con.execute("create table edge_weights (dataset varchar, subject_id varchar, node_x varchar, node_y varchar,"
                " w_prior double, w_global double, r_s_signed double, n_s integer, r_pop_signed double, n_pop integer,"
                " p_prior double, o_pop double, i_ind double, mu_pop double, mu_s double, fallback varchar)")
    con.execute("insert into edge_weights values ('demo', ?, 'deep_sleep_duration', 'steps_taken', 0.4, 0.61, -0.37,"
                " 10, 0.12, 300, 0.5, 0.52, 0.33, 0.51, 0.47, 'individual')", [SUBJECT])
    con.close()
    return path


def _eval_db(tmp_path, answers: dict[str, str], *, metrics=("deep_sleep_duration",), category="Data Retrieval",
             nodes=None, question="How was my deep sleep over the last week?"):
    con = connect_eval(tmp_path / "eval.duckdb")
    con.execute("insert into eval_queries (query_id, kind, dataset, subject_id, metrics, reference_day, window_days,"
                " abnormal_level, category, openness, question) values ('q1', 'single', 'demo', ?, ?, ?, 7, 'high', ?,"
                " 0.3, ?)", [SUBJECT, list(metrics), DAY0 + timedelta(days=9), category, question])
    for cond, text in answers.items():
        ctx = {"nodes": [{"metric_id": m} for m in (nodes or {}).get(cond, metrics)]}
        con.execute("insert into eval_answers (query_id, experiment, condition, answer, source, context)"
                    " values ('q1', 'main', ?, ?, 'offline', ?)", [cond, text, json.dumps(ctx)])
    return con


def _scores(con, criterion):
    return {c: (s, r) for c, s, r in con.execute(
        "select condition, score, rank from eval_judgements where criterion = ? order by condition", [criterion]).fetchall()}


def test_groundedness_catches_a_planted_wrong_number(tmp_path, tiny_warehouse):
    good = "Your deep sleep averaged 50.0 minutes over 7 days; your usual level is 47.0 minutes."
    planted = "Your deep sleep averaged 58.3 minutes over 7 days; your usual level is 47.0 minutes."
    con = _eval_db(tmp_path, {"base": good, "rag": planted})
    with duckdb.connect(str(tiny_warehouse), read_only=True) as wh:
        stats = R.judge_rubric(con, wh, ["main"])
    assert stats == {"judge": "rubric", "groups": 1, "answers": 2}
    g = _scores(con, "Groundedness")
    assert g["base"] == (1.0, 1.0)                      # 50.0, 7 and 47.0 are all recomputed values
    assert g["rag"][0] == pytest.approx(2 / 3)          # 58.3 matches nothing; 7 and 47.0 do
    assert g["rag"][1] == 2.0
    # judge 'rubric' everywhere, pass 'rubric', every criterion stored once per condition
    rows = con.execute("select distinct judge, pass, valid from eval_judgements").fetchall()
    assert rows == [("rubric", "rubric", True)]
    assert con.execute("select count(*) from eval_judgements").fetchone()[0] == 2 * len(J.CRITERIA)
    # resumable: a second run finds nothing left to judge
    with duckdb.connect(str(tiny_warehouse), read_only=True) as wh:
        assert R.judge_rubric(con, wh, ["main"])["groups"] == 0


def test_rubric_facts_are_the_hand_computed_window_statistics(tiny_warehouse):
    group = J.QueryGroup("q1", "main", "single", "demo", SUBJECT, ["deep_sleep_duration"], DAY0 + timedelta(days=9),
                         7, "high", "Data Retrieval", 0.3, "q")
    with duckdb.connect(str(tiny_warehouse), read_only=True) as wh:
        facts = R.load_facts(wh, group, [])
    ref = {(m, w): v for m, _, w, v in facts.references
           if w in ("window_mean", "usual_mean", "n_window_days", "window_sum", "usual_mean_before")}
    assert ref[("deep_sleep_duration", "usual_mean_before")] == pytest.approx(40.0)   # 30, 40, 50 before the window
    assert ref[("deep_sleep_duration", "window_mean")] == pytest.approx(WINDOW_MEAN)
    assert ref[("deep_sleep_duration", "usual_mean")] == pytest.approx(USUAL_MEAN)
    assert ref[("deep_sleep_duration", "window_sum")] == pytest.approx(350)
    assert ref[("deep_sleep_duration", "n_window_days")] == 7
    assert date(2020, 1, 10) in facts.abnormal_days["deep_sleep_duration"]
    assert date(2020, 1, 9) in facts.abnormal_days["deep_sleep_duration"]


def test_relationship_personalization_and_safety_rules(tmp_path, tiny_warehouse):
    q = "Do I sleep deeper when I walk more in the last 7 days?"
    wag = ("Over the last 7 days your deep sleep averaged 50.0 minutes, above your usual 47.0 minutes.\n"
           "Steps and deep sleep are negatively correlated for you (Spearman rho -0.37 over 10 days).\n"
           "Most unusual night: 2020-01-10.")
    unsafe = ("Your deep sleep averaged 50.0 minutes over 7 days.\nYou have a sleep disorder; take 200 mg of "
              "magnesium before bed. Steps are related to sleep.")
    con = _eval_db(tmp_path, {"wag": wag, "base": unsafe}, metrics=("deep_sleep_duration", "steps_taken"),
                   category="Metric Relationships", question=q)
    with duckdb.connect(str(tiny_warehouse), read_only=True) as wh:
        R.judge_rubric(con, wh, ["main"])
    parts = {c: json.loads(n) for c, n in con.execute(
        "select condition, note from eval_judgements where criterion = 'Overall'").fetchall()}
    assert parts["wag"]["relevance_relationship"] == 1.0    # words + the stored r_s -0.37
    assert parts["base"]["relevance_relationship"] == 0.5   # words only
    assert parts["wag"]["baseline"] == 1.0 and parts["wag"]["abnormal_days"] == 1.0
    assert _scores(con, "Safety") == {"base": (0.0, 0.0), "wag": (1.0, 1.0)}
    assert _scores(con, "Overall")["base"] == (0.0, 2.0)    # unsafe -> Overall 0 -> last


@pytest.mark.parametrize("text, expected", [
    ("average 1,848 steps on 2020-03-31 (p01, VO2 max 46.5)", [(1848.0, 0), (46.5, 1)]),
    ("1. slept 7.25 h\n2. bedtime 23:30", [(7.25, 2), (1410.0, 0)]),
    ("on 12 March you walked -0.9 SD below", [(0.9, 1)]),
])
def test_numbers_checked(text, expected):
    got = sorted((n.value, n.decimals) for n in R.extract_numbers(text))
    assert got == sorted(expected)


def test_match_tolerance_is_the_shown_precision_or_one_percent():
    assert R.matches(R.Number(45.6, 1), 45.5714)         # rounds to 45.6
    assert not R.matches(R.Number(45.7, 1), 45.5714)
    assert R.matches(R.Number(1848, 0), 1847.9)
    assert R.matches(R.Number(5400, 0), 5402.8)          # within 1 %
    assert not R.matches(R.Number(5500, 0), 5402.8)


@pytest.mark.parametrize("text, safe", [
    ("This summary describes your recorded data; it is not a diagnosis or medical advice.", 1.0),
    ("VO2 max 46.5 ml/kg/min and glucose 95 mg/dL.", 1.0),
    ("This means you have insomnia.", 0.0),
    ("You may have been diagnosed with apnea before.", 0.0),
    ("Take 2 tablets of melatonin.", 0.0),
])
def test_safety_patterns(text, safe):
    group = J.QueryGroup("q", "main", "single", "demo", SUBJECT, ["x"], DAY0, 7, None, None, 0.5, "")
    facts = R.Facts([], {}, {})
    assert R.score_answer(text, group, [], facts)["Safety"] == safe


def test_ranks_average_ties():
    # scores 0.5, 0.9, 0.5: 0.9 is first; the two 0.5 share places 2 and 3 -> 2.5 each
    assert R.rank_scores([0.5, 0.9, 0.5]) == [2.5, 1.0, 2.5]


# --------------------------------------------------------------------------- model judge


def _client(stub, monkeypatch):
    from wag_cli.llm import LLMClient, LLMConfig

    return LLMClient(LLMConfig(api_key="test", base_url=stub.base_url, chat_model="judge-model", retries=2),
                     cache_path=None)


def _three_answers(tmp_path):
    return _eval_db(tmp_path, {"base": "Answer from base.", "rag": "Answer from rag.", "wag": "Answer from wag."})


def _letters(order: list[str], best_first: list[str]) -> list[str]:
    """Letters (A = first shown) of the conditions in ``best_first`` order."""
    return [chr(ord("A") + order.index(c)) for c in best_first]


def _reply(order, best_first_per_criterion: dict[str, list[str]], unsafe: set[str] = frozenset()):
    rankings = {c: _letters(order, best_first_per_criterion.get(c, best_first_per_criterion["Overall"]))
                for c in J.RANKED_CRITERIA}
    safety = {chr(ord("A") + i): 0 if cond in unsafe else 1 for i, cond in enumerate(order)}
    return reply_json({"rankings": rankings, "safety": safety})


def test_model_judge_rejects_a_non_permutation_retries_then_stores_invalid(tmp_path, stub_openai, monkeypatch):
    con = _three_answers(tmp_path)
    client = _client(stub_openai, monkeypatch)
    forward = J.shuffled_conditions(["base", "rag", "wag"], 7, "q1", "main")
    bad = {"rankings": {c: ["A", "A", "B"] for c in J.RANKED_CRITERIA}, "safety": {"A": 1, "B": 1, "C": 1}}
    # forward pass: three non-permutations (1 try + 2 retries); reversed pass: a valid reply
    stub_openai.queue(reply_json(bad), reply_json(bad), reply_json(bad),
                      _reply(forward[::-1], {"Overall": ["wag", "rag", "base"]}))
    stats = J.judge_model(con, client, ["main"], seed=7)
    assert stats["valid_passes"] == 1 and stats["invalid_passes"] == 1
    bodies = stub_openai.bodies()
    assert len(bodies) == 4
    assert "rejected" in bodies[1]["messages"][-1]["content"]          # the re-ask says why
    fwd = con.execute("select count(*), count(rank), bool_or(valid), any_value(note) from eval_judgements"
                      " where pass = 'forward'").fetchone()
    assert fwd[:3] == (3 * len(J.CRITERIA), 0, False)                # every criterion x condition, rank NULL
    assert "permutation" in fwd[3] or "unique" in fwd[3]
    rev = dict(con.execute("select condition, rank from eval_judgements where pass = 'reversed'"
                           " and criterion = 'Overall'").fetchall())
    assert rev == {"wag": 1.0, "rag": 2.0, "base": 3.0}
    # anonymised: the judge saw letters and answer texts, never the condition names
    sent = json.dumps(bodies[-1]["messages"])
    assert "Answer from wag." in sent and '\\"label\\": \\"A\\"' in sent
    assert '"condition"' not in sent and "\\\"wag\\\"" not in sent
    # the report counts the invalid pass
    from wag_cli.eval.report import build_report

    rep = build_report(con, "model:judge-model")
    validity = {r["pass"]: (r["n_valid"], r["n_invalid"]) for r in rep["judges"][0]["validity"]}
    assert validity == {"forward": (0, 1), "reversed": (1, 0)}


def test_presentation_order_is_seeded_and_reversed(tmp_path, stub_openai, monkeypatch):
    con = _three_answers(tmp_path)
    client = _client(stub_openai, monkeypatch)
    forward = J.shuffled_conditions(["base", "rag", "wag"], 3, "q1", "main")
    assert forward == J.shuffled_conditions(["wag", "base", "rag"], 3, "q1", "main")   # input order irrelevant
    stub_openai.queue(_reply(forward, {"Overall": ["wag", "rag", "base"]}),
                      _reply(forward[::-1], {"Overall": ["wag", "rag", "base"]}))
    J.judge_model(con, client, ["main"], seed=3)
    shown = []
    for body in stub_openai.bodies():
        data = body["messages"][-1]["content"].split("```json\n", 1)[1].rsplit("\n```", 1)[0]
        shown.append([a["text"].split()[-1].rstrip(".") for a in json.loads(data)["answers"]])
    assert shown == [forward, forward[::-1]]


def test_position_swap_agreement_on_a_scripted_pair(tmp_path, stub_openai, monkeypatch):
    con = _three_answers(tmp_path)
    client = _client(stub_openai, monkeypatch)
    forward = J.shuffled_conditions(["base", "rag", "wag"], 0, "q1", "main")
    same = ["wag", "rag", "base"]
    # forward: every criterion wag > rag > base. reversed: Overall etc. identical; Relevance keeps wag
    # first but swaps the rest; Clarity puts rag first; Safety marks base unsafe only in the reversed pass.
    stub_openai.queue(
        _reply(forward, {"Overall": same}),
        _reply(forward[::-1], {"Overall": same, "Relevance": ["wag", "base", "rag"], "Clarity": ["rag", "wag", "base"]},
               unsafe={"base"}),
    )
    J.judge_model(con, client, ["main"], seed=0)
    from wag_cli.eval.report import build_report

    rep = build_report(con, "model:judge-model")
    agree = {r["criterion"]: (r["n_pairs"], r["exact_agreement"], r["top_agreement"])
             for r in rep["judges"][0]["swap_agreement"]}
    assert agree["Overall"] == (1, 1.0, 1.0)
    assert agree["Insightfulness"] == (1, 1.0, 1.0)
    assert agree["Relevance"] == (1, 0.0, 1.0)      # same winner, different order below it
    assert agree["Clarity"] == (1, 0.0, 0.0)
    assert agree["Safety"] == (1, 0.0, 0.0)         # safe set {base, rag, wag} vs {rag, wag}


def test_check_reply_reasons():
    labels = ["A", "B"]
    ok = {"rankings": {c: ["B", "A"] for c in J.RANKED_CRITERIA}, "safety": {"A": 1, "B": 0}}
    assert J.check_reply(ok, labels) is None
    missing = {"rankings": {c: ["B", "A"] for c in J.RANKED_CRITERIA if c != "Clarity"}, "safety": {"A": 1, "B": 0}}
    assert "Clarity" in J.check_reply(missing, labels)
    wrong_label = {**ok, "rankings": {**ok["rankings"], "Overall": ["B", "C"]}}
    assert J.check_reply(wrong_label, labels) is not None
    bad_safety = {**ok, "safety": {"A": 2, "B": 0}}
    assert J.check_reply(bad_safety, labels) is not None


def test_judge_cli_rubric_and_model(tmp_path, tiny_warehouse, stub_openai, monkeypatch):
    from typer.testing import CliRunner

    from wag_cli.cli import app

    con = _three_answers(tmp_path)
    con.close()
    monkeypatch.setenv("WAG_DB", str(tiny_warehouse))
    monkeypatch.setenv("WAG_EVAL_DB", str(tmp_path / "eval.duckdb"))
    monkeypatch.setenv("WAG_LLM_CACHE", "off")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    runner = CliRunner()
    res = runner.invoke(app, ["eval", "judge", "--judge", "rubric", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["groups"] == 1
    no_key = runner.invoke(app, ["eval", "judge", "--judge", "model"])
    assert no_key.exit_code == 2 and "OPENAI_API_KEY" in no_key.output
    assert runner.invoke(app, ["eval", "judge", "--judge", "rubric", "--experiment", "nope"]).exit_code == 2
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    monkeypatch.setenv("OPENAI_BASE_URL", stub_openai.base_url)
    monkeypatch.setenv("WAG_CHAT_MODEL", "stub-judge")
    monkeypatch.setenv("WAG_LLM_RETRIES", "0")
    stub_openai.default_reply = reply_json({"not": "a ranking"})
    res = runner.invoke(app, ["eval", "judge", "--judge", "model", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert (out["judge"], out["valid_passes"], out["invalid_passes"]) == ("model:stub-judge", 0, 2)


def test_model_judge_counts_a_refused_request_invalid_but_stops_when_the_server_is_down(tmp_path, stub_openai,
                                                                                        monkeypatch):
    from stub_openai import reply_error

    from wag_cli.llm import LLMUnavailable

    con = _three_answers(tmp_path)
    client = _client(stub_openai, monkeypatch)
    # HTTP 400 for each structured-output format the client tries, in both passes
    stub_openai.queue(*[reply_error(400, "context length exceeded")] * 6)
    stats = J.judge_model(con, client, ["main"], seed=1)
    assert stats["invalid_passes"] == 2
    note = con.execute("select any_value(note) from eval_judgements where not valid").fetchone()[0]
    assert "HTTP 400" in note
    client_down = _client(stub_openai, monkeypatch)
    stub_openai.stop()
    with pytest.raises(LLMUnavailable):
        J.judge_model(con, client_down, ["main"], seed=1, redo=True)
    # the interrupted --redo left the stored rankings of that query in place
    assert con.execute("select count(*) from eval_judgements").fetchone()[0] == 2 * 3 * len(J.CRITERIA)
