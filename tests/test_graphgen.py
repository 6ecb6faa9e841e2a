"""Graph construction (issue 11 items 1-2, 6): Algorithm 1 against the local stub server, the seed
format, the offline proposals for unmapped wide columns and the PNG pictures.

Every model request goes to tests/stub_openai.py on 127.0.0.1; the scripted replies are written here
by hand, so the expected seed rows are known independently of the code.
"""

from __future__ import annotations

import csv
import hashlib
import json
import shutil
from pathlib import Path

import duckdb
import jsonschema
import pytest
from typer.testing import CliRunner

from stub_openai import reply_json, reply_text
from wag_cli import llm
from wag_cli.graphgen.build import build_graph
from wag_cli.graphgen.seeds import COLUMNS, CATEGORIES, GraphSeeds, diff_seeds, read_seeds, write_seeds

REPO = Path(__file__).resolve().parents[1]

BASE_NODES = {
    "heart_rate": ("Heart rate", "Physiological", "bpm", "pulse|heartbeat"),
    "steps_taken": ("Steps taken", "Activity", "steps", "steps|step count"),
    "mood": ("Mood", "Mental", "score", "how i feel"),
    "asleep_duration": ("Asleep duration", "Sleep", "minutes", "time asleep"),
}


def _base() -> GraphSeeds:
    g = GraphSeeds()
    for mid, (name, cat, unit, aliases) in BASE_NODES.items():
        g.nodes[mid] = {"metric_id": mid, "name": name, "category": cat, "unit": unit, "data_kind": "numeric",
                        "description": f"{name} description.", "normal_range": "varies", "recommendations": "none",
                        "aliases": aliases, "physical_min": "", "physical_max": "", "origin": "initial",
                        "data_sources": "", "ratio_scale": "true"}
    g.edges[("heart_rate", "steps_taken")] = {"node_a": "heart_rate", "node_b": "steps_taken", "w_prior": "0.5",
                                              "confidence": "medium", "relationship": "Activity raises heart rate."}
    return g


def _node(mid, name, cat, unit, aliases=()):
    return {"metric_id": mid, "name": name, "category": cat, "unit": unit, "data_kind": "numeric",
            "description": f"What {name} measures and why it matters.", "normal_range": "Varies by person.",
            "recommendations": "Keep it moderate.", "aliases": list(aliases), "physical_min": 0, "physical_max": None,
            "ratio_scale": True}


NEW = [("Caffeine intake", _node("caffeine_intake", "Caffeine intake", "Lifestyle", "mg", ["coffee", "pulse"])),
       ("Screen time", _node("screen_time", "Screen time", "Lifestyle", "minutes", ["phone use"])),
       ("Water intake", _node("water_intake", "Water intake", "Lifestyle", "ml", ["hydration"]))]

# strength per (new node, other): >= 0.1 an edge, below it an unrelated pair
STRENGTH = {("caffeine_intake", "asleep_duration"): 0.6, ("caffeine_intake", "heart_rate"): 0.3,
            ("screen_time", "asleep_duration"): 0.4, ("screen_time", "caffeine_intake"): 0.05}


def _pairs_reply(new_id: str, others: list[str]) -> dict:
    return {"pairs": {o: {"strength": STRENGTH.get((new_id, o), 0.0), "confidence": "medium",
                          "text": f"{new_id} and {o}."} for o in others}}


def _script(stub) -> None:
    """NodeGen for the three names (one batch), then EdgeGen per new node against every node before it."""
    stub.queue(reply_json({"nodes": {name: node for name, node in NEW}}))
    seen = list(BASE_NODES)
    for _name, node in NEW:
        stub.queue(reply_json(_pairs_reply(node["metric_id"], seen)))
        seen.append(node["metric_id"])


@pytest.fixture
def client(stub_openai, monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    monkeypatch.setenv("OPENAI_BASE_URL", stub_openai.base_url)
    monkeypatch.setenv("WAG_EMBED_MODEL", "")
    monkeypatch.setenv("WAG_LLM_RETRIES", "1")
    monkeypatch.delenv("WAG_LLM_CACHE", raising=False)
    return llm.get_client(cache_path=tmp_path / "cache.duckdb")


def _catalog_schema() -> dict:
    """Row checks of seeds/_metric_catalog__seeds.yml and _prior_edges__seeds.yml as a JSON Schema."""
    return {"type": "object", "required": list(COLUMNS["metric_catalog"]), "properties": {
        "metric_id": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
        "category": {"enum": list(CATEGORIES)}, "data_kind": {"enum": ["numeric", "text"]},
        "origin": {"enum": ["initial", "dataset", "both"]}, "ratio_scale": {"enum": ["true", "false"]}}}


def test_three_new_metrics_and_an_alias_give_valid_seed_rows(client, stub_openai, tmp_path):
    _script(stub_openai)
    metrics = [{"name": "Caffeine intake"}, {"name": "pulse", "data_source": "mine: pulse column"},
               {"name": "Screen time"}, {"name": "Water intake"}]
    g, stats = build_graph(_base(), metrics, client)
    assert stats.added == ["caffeine_intake", "screen_time", "water_intake"]
    assert stats.merged == {"pulse": ("heart_rate", "name/alias")}            # merged, not duplicated
    assert g.nodes["heart_rate"]["origin"] == "both" and "mine: pulse column" in g.nodes["heart_rate"]["data_sources"]
    assert len(stub_openai.bodies()) == 4 and stats.requests == 4 and stats.failed == []
    out = tmp_path / "seeds"
    write_seeds(g, out)
    with open(out / "metric_catalog.csv", newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        assert tuple(reader.fieldnames) == COLUMNS["metric_catalog"]
        rows = {r["metric_id"]: r for r in reader}
    for r in rows.values():
        jsonschema.validate(r, _catalog_schema())
    assert rows["caffeine_intake"]["unit"] == "mg" and rows["water_intake"]["physical_min"] == "0"
    # "pulse" is heart_rate's alias, so the new node may not claim it (an alias belongs to one node)
    assert rows["caffeine_intake"]["aliases"].split("|") == ["coffee"]
    back = read_seeds(out)
    new_ids = ["caffeine_intake", "screen_time", "water_intake"]
    expected_edges = {tuple(sorted(k)) for k, v in STRENGTH.items() if v >= 0.1} | {("heart_rate", "steps_taken")}
    assert set(back.edges) == expected_edges
    assert back.edges[("asleep_duration", "caffeine_intake")]["w_prior"] == "0.6"
    # every new node is judged against every node before it exactly once (edge or unrelated pair)
    for i, mid in enumerate(new_ids):
        others = list(BASE_NODES) + new_ids[:i]
        judged = {k for k in set(back.edges) | set(back.unrelated) if mid in k and (set(k) - {mid}) & set(others)}
        assert len(judged) == len(others)
        assert not set(back.edges) & set(back.unrelated)
    assert all(a < b for a, b in back.edges) and all(0.1 <= float(e["w_prior"]) <= 1 for e in back.edges.values())
    d = diff_seeds(_base(), back)
    assert d["nodes"]["added"] == new_ids and d["nodes"]["changed"] == {"heart_rate": ["origin", "data_sources"]}
    assert len(d["edges"]["added"]) == 3 and d["edges"]["removed"] == []


def test_rerun_hits_the_cache(client, stub_openai):
    _script(stub_openai)
    metrics = [{"name": n} for n, _ in NEW]
    first, _ = build_graph(_base(), metrics, client)
    n = len(stub_openai.requests)
    again, stats = build_graph(_base(), metrics, client)
    assert len(stub_openai.requests) == n and stats.requests == 0 and stats.cache_hits == 4
    assert again.nodes == first.nodes and again.edges == first.edges and again.unrelated == first.unrelated


def test_invalid_reply_is_retried_then_reported_never_written(client, stub_openai, tmp_path):
    # NodeGen leaves out a name twice (retries=1): the batch fails, nothing is written for it
    bad = {"nodes": {name: node for name, node in NEW[:2]}}
    stub_openai.queue(reply_json(bad), reply_text("not json either"))
    g, stats = build_graph(_base(), [{"name": n} for n, _ in NEW], client)
    assert len(stub_openai.bodies()) == 2
    assert [f[0] for f in stats.failed] == ["NodeGen"] * 3 and "unusable after 2 attempt(s)" in stats.failed[0][2]
    assert set(g.nodes) == set(BASE_NODES) and stats.added == []
    # an EdgeGen reply that skips an id fails that node only: it is left out with all its pairs
    stub_openai.queue(reply_json({"nodes": {NEW[0][0]: NEW[0][1]}}))
    skip = _pairs_reply("caffeine_intake", list(BASE_NODES)[:-1])
    stub_openai.queue(reply_json(skip), reply_json(skip))
    g2, stats2 = build_graph(_base(), [{"name": NEW[0][0]}], client)
    assert stats2.added == [] and stats2.failed[0][0] == "EdgeGen" and "caffeine_intake" not in g2.nodes
    assert all("caffeine_intake" not in k for k in list(g2.edges) + list(g2.unrelated))


def test_seed_round_trip_is_byte_identical(tmp_path):
    out = tmp_path / "copy"
    write_seeds(read_seeds(REPO / "seeds"), out)
    for f in ("metric_catalog.csv", "prior_edges.csv", "prior_unrelated_pairs.csv"):
        assert (out / f).read_bytes() == (REPO / "seeds" / f).read_bytes()


# --------------------------------------------------------------------------- add-metrics offline


def _project_copy(tmp_path: Path) -> Path:
    proj = tmp_path / "project"
    (proj / "seeds").mkdir(parents=True)
    shutil.copy(REPO / "dbt_project.yml", proj / "dbt_project.yml")
    for f in ("metric_catalog.csv", "prior_edges.csv", "prior_unrelated_pairs.csv"):
        shutil.copy(REPO / "seeds" / f, proj / "seeds" / f)
    return proj


@pytest.fixture
def wide_warehouse(tmp_path, monkeypatch):
    csv_path = tmp_path / "export.csv"
    lines = ["participant_id,date,Caffeine intake (mg),Diary note,Focus rating,pulse"]
    for i in range(10):
        lines.append(f"u1,2021-06-{i + 1:02d},{[0, 80, 160][i % 3]},{['ok', 'tired'][i % 2]},{i % 5 + 1},{60 + i}")
    csv_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    db = tmp_path / "w.duckdb"
    con = duckdb.connect(str(db))
    con.execute("create table stg_wide__unmapped_columns as select * from (values "
                "('mine', 'Caffeine intake (mg)', 10), ('mine', 'Diary note', 10), ('mine', 'Focus rating', 10)) "
                "t(dataset, column_name, n_values)")
    con.close()
    monkeypatch.setenv("WAG_DB", str(db))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return csv_path


def _digest(folder: Path) -> str:
    return hashlib.sha256(b"".join((folder / f).read_bytes() for f in
                                   ("metric_catalog.csv", "prior_edges.csv", "prior_unrelated_pairs.csv"))).hexdigest()


def test_add_metrics_offline_proposes_unreviewed_nodes_without_edges(wide_warehouse, tmp_path, monkeypatch):
    from wag_cli.cli import app

    proj = _project_copy(tmp_path)
    monkeypatch.setenv("WAG_PROJECT_DIR", str(proj))
    before = _digest(proj / "seeds")
    out = tmp_path / "proposed"
    res = CliRunner().invoke(app, ["graph", "add-metrics", "--from-unmapped", "--offline", "--out", str(out),
                                   "--wide", f"mine={wide_warehouse}", "--json"])
    assert res.exit_code == 0, res.output
    info = json.loads(res.output)
    assert info["added"] == ["caffeine_intake_mg", "diary_note", "focus_rating"] == info["unreviewed"]
    assert _digest(proj / "seeds") == before                       # nothing overwritten without --write
    g = read_seeds(out)
    shipped = read_seeds(proj / "seeds")
    assert len(g.nodes) == len(shipped.nodes) + 3 and g.edges == shipped.edges and g.unrelated == shipped.unrelated
    caf, diary, focus = (g.nodes[m] for m in info["added"])
    assert (caf["unit"], caf["data_kind"], caf["category"]) == ("mg", "numeric", "Lifestyle")
    assert (diary["unit"], diary["data_kind"]) == ("text", "text")
    assert focus["unit"] == "score"                                  # integers 1..5
    assert "observed 0 to 160" in caf["description"]
    for r in (caf, diary, focus):
        assert r["description"].startswith("[unreviewed]") and "unreviewed" in r["data_sources"]
        assert r["aliases"] == r["name"].lower()                    # the wide header resolves to it
    res = CliRunner().invoke(app, ["graph", "add-metrics", "--from-unmapped", "--offline", "--out", str(out),
                                   "--wide", f"mine={wide_warehouse}", "--write"])
    assert res.exit_code == 0, res.output
    assert _digest(proj / "seeds") == _digest(out)
    res = CliRunner().invoke(app, ["graph", "add-metrics", "--from-unmapped", "--offline", "--out",
                                   str(proj / "seeds")])
    assert res.exit_code != 0 and "shipped seeds" in res.output


def test_graph_diff_cli(tmp_path):
    from wag_cli.cli import app

    old, new = tmp_path / "old", tmp_path / "new"
    write_seeds(_base(), old)
    g = _base()
    g.edges[("heart_rate", "steps_taken")]["w_prior"] = "0.7"
    del g.nodes["mood"]
    write_seeds(g, new)
    res = CliRunner().invoke(app, ["graph", "diff", str(old), str(new), "--json"])
    d = json.loads(res.output)
    assert d["nodes"]["removed"] == ["mood"]
    assert d["edges"]["changed"] == {"heart_rate|steps_taken": {"w_prior": ["0.5", "0.7"]}}


# --------------------------------------------------------------------------- plot


def test_plot_writes_a_valid_png(tmp_path, monkeypatch):
    import matplotlib.image as mpimg

    from wag_cli.cli import app

    db = tmp_path / "g.duckdb"
    con = duckdb.connect(str(db))
    con.execute("create table nodes as select * from (values ('a', 'A', 'Sleep'), ('b', 'B', 'Activity'), "
                "('c', 'C', 'Mental')) t(metric_id, name, category)")
    con.execute("create table edges as select * from (values ('a', 'b', 0.9), ('b', 'c', 0.2)) t(node_a, node_b, w_prior)")
    con.close()
    monkeypatch.setenv("WAG_DB", str(db))
    out = tmp_path / "g.png"
    res = CliRunner().invoke(app, ["graph", "plot", "--out", str(out)])
    assert res.exit_code == 0, res.output
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and 10_000 < len(data) < 2_000_000
    img = mpimg.imread(out)
    assert img.shape[:2] == (800, 1000)                 # 10 x 8 inches at 100 dpi
    assert "3 nodes, 2 edges" in res.output


def test_graph_build_cli_writes_the_chosen_folder_only(client, stub_openai, tmp_path, monkeypatch):
    from wag_cli.cli import app

    proj = _project_copy(tmp_path)
    monkeypatch.setenv("WAG_PROJECT_DIR", str(proj))
    monkeypatch.setenv("WAG_LLM_CACHE", str(tmp_path / "cli_cache.duckdb"))
    before = _digest(proj / "seeds")
    base = tmp_path / "base"
    write_seeds(_base(), base)
    stub_openai.queue(reply_json({"nodes": {NEW[0][0]: NEW[0][1]}}),
                      reply_json(_pairs_reply("caffeine_intake", list(BASE_NODES))))
    out = tmp_path / "grown"
    args = ["graph", "build", "--base", str(base), "--metric", NEW[0][0], "--metric", "heartbeat", "--out", str(out),
            "--json"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    info = json.loads(res.stdout)
    assert info["added"] == ["caffeine_intake"] and info["merged"] == {"heartbeat": ["heart_rate", "name/alias"]}
    assert info["requests"] == 2 and info["written_to_seeds"] == [] and info["prompt_tokens_estimate"] > 0
    assert set(read_seeds(out).nodes) == set(BASE_NODES) | {"caffeine_intake"}
    assert _digest(proj / "seeds") == before
    again = json.loads(CliRunner().invoke(app, args).stdout)                   # resumed/re-run: cache only
    assert again["requests"] == 0 and again["cache_hits"] == 2 and len(stub_openai.bodies()) == 2
    res = CliRunner().invoke(app, ["graph", "build", "--out", str(out)])
    assert res.exit_code != 0 and "nothing to build" in res.output


def test_merge_by_embedding_cosine_at_delta(client):
    """The stub's vectors are sha256-based, so the best node and its cosine are computed here by hand."""
    import math

    from stub_openai import fake_embedding
    from wag_cli.graphgen.merge import find_match

    client.embed_model = "stub-embed"
    name = "Coffee consumption"
    q = fake_embedding(name)
    best = max(((sum(a * b for a, b in zip(q, fake_embedding(t))), mid)
                for mid, (nm, _c, _u, aliases) in BASE_NODES.items() for t in [nm, *aliases.split("|")]),
               key=lambda x: (x[0], x[1]))
    cos, mid = best
    assert math.isfinite(cos)
    assert find_match(name, _base(), client, delta=cos - 1e-9) == (mid, f"embedding cosine {cos:.2f}")
    assert find_match(name, _base(), client, delta=cos + 1e-6) is None
    assert find_match("heartbeat", _base(), client) == ("heart_rate", "name/alias")   # lexical first
