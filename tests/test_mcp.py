"""`wag mcp` through the SDK's in-memory client (issue 29), on the warehouse built from ../shared/data.

Each tool is compared with what the CLI prints for the same input (`wag subjects/ask/sql/graph show
--json`) or with values computed here from the long table; run_sql's guard and bounds, and the
errors of a missing or locked warehouse, are checked as a client sees them.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from datetime import date, timedelta

import anyio
import duckdb
import pandas as pd
import pytest
from mcp import Client
from typer.testing import CliRunner

from wag_cli.cli import app
from wag_cli.mcp_server import create_server
from wag_cli.mcp_tools import MAX_REPLY_CHARS, MAX_SQL_CHARS, MAX_SQL_ROWS
from wag_cli.settings import dbt_vars

TOOLS = {"list_subjects", "list_metrics", "ask", "retrieve_subgraph", "node_window", "explain_edge", "run_sql"}


@pytest.fixture()
def wh(built_db, monkeypatch):
    monkeypatch.setenv("WAG_DB", str(built_db))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return built_db


def session(fn):
    """Run ``await fn(client)`` against a fresh in-memory server; return its result."""
    async def main():
        async with Client(create_server()) as client:
            return await fn(client)
    return anyio.run(main)


def call(tool: str, args: dict):
    """One tool call; returns the CallToolResult."""
    return session(lambda c: c.call_tool(tool, args))


def ok(tool: str, args: dict) -> dict:
    res = call(tool, args)
    assert not res.is_error, res.content[0].text
    assert json.loads(res.content[0].text) == res.structured_content   # the text block is the same JSON
    return res.structured_content


def cli_json(*args) -> dict | list:
    res = CliRunner().invoke(app, list(args))
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def query(db, sql: str, params=None) -> pd.DataFrame:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, params or []).df()
    finally:
        con.close()


def last_measured_day(db) -> str:
    """The warehouse's last day with data, from the long table (profile rows left out)."""
    df = query(db, "select v.day, c.category from metric_values v left join metric_catalog c using (metric_id)")
    return max(df.loc[df.category != "Demographic", "day"]).date().isoformat()


def test_every_tool_is_listed_with_a_schema_and_read_only(wh):
    tools = session(lambda c: c.list_tools()).tools
    assert {t.name for t in tools} == TOOLS
    for t in tools:
        assert len(t.description) > 80, t.name
        assert t.input_schema["type"] == "object" and t.output_schema["type"] == "object"
        for name, prop in t.input_schema["properties"].items():
            assert prop.get("description"), f"{t.name}.{name} has no description"
        assert t.annotations.read_only_hint and not t.annotations.destructive_hint
    required = {t.name: set(t.input_schema.get("required", [])) for t in tools}
    assert required["ask"] == {"question", "subject"}
    assert required["run_sql"] == {"query"} and required["list_subjects"] == set()
    assert required["explain_edge"] == {"subject", "metric_x", "metric_y"}
    resources = session(lambda c: c.list_resources()).resources
    assert {str(r.uri) for r in resources} == {"wag://catalog", "wag://method"}


def test_list_subjects_is_wag_subjects(wh):
    out = ok("list_subjects", {})
    assert out["subjects"] == cli_json("subjects", "--json")["subjects"]
    assert out["data_last_day"] == last_measured_day(wh)
    pm = ok("list_subjects", {"dataset": "pmdata"})
    assert [s["subject_id"] for s in pm["subjects"]] == [s["subject_id"] for s in out["subjects"]
                                                          if s["subject_id"].startswith("pmdata:")]
    assert pm["n_subjects"] >= 2


def test_list_metrics_searches_ids_names_aliases_and_categories(wh):
    nodes = query(wh, "select metric_id, name, aliases, category from nodes")
    text = (nodes.metric_id + " " + nodes.metric_id.str.replace("_", " ") + " " + nodes.name + " "
            + nodes.aliases.fillna("") + " " + nodes.category).str.lower()
    expected = set(nodes.metric_id[text.str.contains("heart") & text.str.contains("rate")])
    out = ok("list_metrics", {"query": "Heart rate", "limit": 200})
    assert {m["metric_id"] for m in out["metrics"]} == expected and len(expected) >= 2
    hrv = ok("list_metrics", {"query": "HRV"})["metrics"]
    assert [m["metric_id"] for m in hrv] == ["hrv_rmssd"] and hrv[0]["unit"] == "ms"
    sources = query(wh, "select dataset, measurement from metric_sources where metric_id = 'hrv_rmssd' order by 1")
    assert hrv[0]["measured_in"] == sources.to_dict("records")
    every = ok("list_metrics", {"query": "", "limit": 5})
    assert len(every["metrics"]) == 5 and every["n_matches"] == len(nodes) and "first 5" in every["truncated"]
    none = ok("list_metrics", {"query": "sleeep qqq"})
    assert none["metrics"] == [] and "Total sleep duration" in none["closest_metrics"]


@pytest.mark.parametrize("question, as_of", [
    ("How did I sleep this week?", None),
    ("Why am I so tired lately even though I sleep enough?", "2020-01-20"),
])
def test_ask_is_wag_ask_json(wh, question, as_of):
    args = {"question": question, "subject": "pmdata:p01"} | ({"as_of": as_of} if as_of else {})
    files = {p: p.stat().st_mtime_ns for p in wh.parent.iterdir()}
    out = ok("ask", args)
    assert {p: p.stat().st_mtime_ns for p in wh.parent.iterdir()} == files     # nothing written beside it
    cli = cli_json("ask", question, "--subject", "pmdata:p01", "--json", "--offline",
                   *(["--as-of", as_of] if as_of else []))
    for key in ("answer", "subgraph", "parse", "analysis", "method"):
        assert out[key] == cli[key], key
    assert out["answer"] and out["subgraph"]["nodes"] and "truncated" not in out
    assert out["data_last_day"] == last_measured_day(wh)
    assert out["subject_last_day"] == "2020-03-31"      # p01's excerpt ends there (raw files)


def test_a_long_ask_reply_is_bounded_and_says_so(wh):
    out = ok("ask", {"question": "How did I sleep overall?", "subject": "pmdata:p01"})
    cli = cli_json("ask", "How did I sleep overall?", "--subject", "pmdata:p01", "--json", "--offline")
    assert len(json.dumps(cli)) > MAX_REPLY_CHARS                # the case this test is about
    assert len(json.dumps(out)) <= MAX_REPLY_CHARS + 400
    assert "daily values trimmed" in out["truncated"]
    assert out["answer"] == cli["answer"]
    for mine, full in zip(out["subgraph"]["nodes"], cli["subgraph"]["nodes"]):
        daily = mine["data"].pop("daily")
        assert daily == full["data"]["daily"][len(full["data"]["daily"]) - len(daily):]   # the latest days
        full["data"].pop("daily")
        assert mine["data"] == full["data"]


def test_retrieve_subgraph_is_the_macro_and_the_ask_subgraph(wh):
    cli = cli_json("ask", "How did I sleep this week?", "--subject", "pmdata:p01", "--json", "--offline")
    parse = cli["parse"]
    out = ok("retrieve_subgraph", {"subject": "pmdata:p01", "metrics": parse["metrics"],
                                   "window_days": parse["window_days"], "openness": parse["openness"]})
    assert [(r["node_id"], r["role"]) for r in out["rows"]] == \
        [(n["metric_id"], n["role"]) for n in cli["subgraph"]["nodes"]]
    # the macro called here directly, its named arguments left at their defaults (the dbt vars)
    direct = query(wh, "select node_id, role, rank, w_final, w_global from wag_retrieve('pmdata:p01', "
                       "['deep_sleep_duration', 'hrv_rmssd'], date '2020-02-15', 14, 0.9) where is_selected "
                       "order by primary_node, rank, node_id")
    out = ok("retrieve_subgraph", {"subject": "pmdata:p01", "metrics": ["deep sleep", "HRV"],
                                   "as_of": "2020-02-15", "window_days": 14, "openness": 0.9})
    assert out["metrics"] == ["deep_sleep_duration", "hrv_rmssd"]
    assert out["budget"] == int(0.9 * int(dbt_vars()["kappa"]))
    got = pd.DataFrame(out["rows"])[["node_id", "role", "rank", "w_final", "w_global"]]
    pd.testing.assert_frame_equal(got, direct, check_dtype=False)


def test_node_window_matches_the_long_table(wh):
    ref, k = date(2020, 1, 20), 7
    out = ok("node_window", {"subject": "pmdata:p01", "metric": "resting heart rate", "as_of": ref.isoformat(),
                             "window_days": k})
    v = query(wh, "select day, value from metric_values where subject_id = 'pmdata:p01' "
                  "and metric_id = 'resting_heart_rate' and day <= ? order by day", [ref])
    v["day"] = v.day.dt.date
    window = v[v.day > ref - timedelta(days=k)]
    assert out["metric_id"] == "resting_heart_rate" and out["unit"] == "bpm"
    assert out["n_window_days"] == len(window) and out["n_history_days"] == len(v)
    assert out["window_mean"] == pytest.approx(window.value.mean(), rel=1e-9)
    assert out["usual_mean"] == pytest.approx(v.value.mean(), rel=1e-9)
    assert out["usual_sd"] == pytest.approx(v.value.std(ddof=1), rel=1e-9)
    assert out["zeta"] == pytest.approx(((window.value - v.value.mean()).abs() / v.value.std(ddof=1)).mean(), rel=1e-9)
    assert [d["day"] for d in out["daily"]] == [d.isoformat() for d in window.day]
    assert [d["value"] for d in out["daily"]] == pytest.approx(list(window.value))


def test_explain_edge_is_the_stored_row_and_the_fusion(wh):
    show = cli_json("graph", "show", "deep_sleep_duration", "--subject", "pmdata:p01", "--json")
    stored = next(r for r in show["edge_weights"] if r["node_y"] == "asleep_duration")
    out = ok("explain_edge", {"subject": "pmdata:p01", "metric_x": "deep sleep", "metric_y": "asleep_duration",
                              "openness": 0.9})
    assert out["edge_weights_full_history"] == stored
    s = out["stages"]
    # as of the subject's last day the as-of weights are the full-history ones (DESIGN.md §6)
    assert s["prior"]["w_prior"] == stored["w_prior"] and s["global"]["fallback"] == stored["fallback"]
    for stage, col in (("prior", "p_prior"), ("population", "o_pop"), ("individual", "i_ind"),
                       ("population", "mu_pop"), ("individual", "mu_s"), ("global", "w_global")):
        assert s[stage][col] == pytest.approx(stored[col], rel=1e-9), col
    beta = float(dbt_vars()["beta"])
    assert s["final"]["w_final"] == pytest.approx((1 - beta) * s["global"]["w_global"] + beta * s["local"]["w_local"])
    assert out["relationship"] == next(e["relationship"] for e in show["edges"] if e["neighbour"] == "asleep_duration")
    linked = {e["neighbour"] for e in show["edges"]} | {"deep_sleep_duration"}
    other = sorted(set(query(wh, "select metric_id from nodes").metric_id) - linked)[0]
    bad = call("explain_edge", {"subject": "pmdata:p01", "metric_x": "deep_sleep_duration", "metric_y": other})
    assert bad.is_error and f"no edge between deep_sleep_duration and {other}" in bad.content[0].text


def test_run_sql_is_wag_sql_json(wh):
    sql = "select subject_id, count(*) as n, min(day) as first from metric_values group by 1 order by 1"
    out = ok("run_sql", {"query": sql})
    assert out["rows"] == cli_json("sql", sql, "--json") and "truncated" not in out
    assert out["columns"] == ["subject_id", "n", "first"] and out["data_last_day"] == last_measured_day(wh)


@pytest.mark.parametrize("sql, needle", [
    ("create table t as select 1 as x", "CREATE"),
    ("insert into nodes (metric_id) values ('x')", "INSERT"),
    ("delete from edges", "DELETE"),
    ("select * from read_csv('/etc/passwd')", "read_csv"),
    ("select * from '/etc/passwd'", "/etc/passwd"),
    ("attach '/tmp/other.duckdb' as o", "ATTACH"),
    ("copy nodes to '/tmp/nodes.csv'", "COPY"),
])
def test_run_sql_refuses_writes_file_readers_and_attach(wh, sql, needle):
    before = wh.stat().st_mtime_ns
    res = call("run_sql", {"query": sql})
    text = res.content[0].text
    assert res.is_error and "read-only" in text and needle.lower() in text.lower()
    assert "\n" not in text and wh.stat().st_mtime_ns == before


def test_run_sql_truncates_rows_and_characters_with_a_note(wh):
    out = ok("run_sql", {"query": "select range as i from range(5000)"})
    assert out["n_rows"] == MAX_SQL_ROWS and [r["i"] for r in out["rows"]] == list(range(MAX_SQL_ROWS))
    assert f"first {MAX_SQL_ROWS:,} rows" in out["truncated"]
    out = ok("run_sql", {"query": "select i, repeat('x', 1000) as s from range(300) t(i)"})
    assert 0 < out["n_rows"] < 300 and len(json.dumps(out["rows"])) <= MAX_SQL_CHARS
    assert f"first {out['n_rows']} rows (about {MAX_SQL_CHARS:,} characters)" in out["truncated"]


def test_resources_catalog_and_method_note(wh):
    catalog = session(lambda c: c.read_resource("wag://catalog")).contents[0].text
    data = json.loads(catalog)
    assert len(data["metrics"]) == len(query(wh, "select 1 from nodes")) and data["data_last_day"] == last_measured_day(wh)
    note = session(lambda c: c.read_resource("wag://method")).contents[0].text
    assert "w_final" in note and f"Data last day in this warehouse: {last_measured_day(wh)}" in note


def test_missing_warehouse_is_a_one_sentence_tool_error(tmp_path, monkeypatch):
    monkeypatch.setenv("WAG_DB", str(tmp_path / "nope.duckdb"))
    for tool, args in (("list_subjects", {}), ("run_sql", {"query": "select 1"})):
        res = call(tool, args)
        assert res.is_error and "no warehouse at" in res.content[0].text and "\n" not in res.content[0].text


def test_locked_warehouse_is_a_one_sentence_tool_error(wh, tmp_path, monkeypatch):
    db = tmp_path / "locked.duckdb"
    shutil.copy(wh, db)
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time, duckdb; con = duckdb.connect(sys.argv[1]); "
                               "print('ready', flush=True); time.sleep(60)", str(db)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ready"
        monkeypatch.setenv("WAG_DB", str(db))
        monkeypatch.setenv("WAG_LOCK_WAIT", "0")
        res = call("ask", {"question": "How did I sleep?", "subject": "pmdata:p01"})
    finally:
        holder.kill()
        holder.wait()
    text = res.content[0].text
    assert res.is_error and f"PID {holder.pid}" in text and "\n" not in text
    # the holder gone, the same server process answers again
    assert not call("list_subjects", {}).is_error
