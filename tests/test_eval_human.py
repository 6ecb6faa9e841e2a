"""Human evaluation (DESIGN.md §10 "Human evaluation"): the seeded sample, the per-rater anonymous
shuffle, offline files (export, fill, import with validation) and the report's Table 2 layout, whose
mean ranks, Krippendorff's alpha and Spearman are checked against values computed here by hand, with
the rankings the test itself wrote, and with scipy."""

from __future__ import annotations

import json
import re

import duckdb
import pytest
from human_fixtures import EXPS, QUERIES, answer_text, conditions, make_store, rubric_rank
from scipy.stats import spearmanr
from typer.testing import CliRunner

from wag_cli.cli import app
from wag_cli.eval.krippendorff import alpha


@pytest.fixture
def store(tmp_path, monkeypatch):
    path = tmp_path / "eval.duckdb"
    make_store(path).close()
    monkeypatch.setenv("WAG_EVAL_DB", str(path))
    return path


def _invoke(*args, code=0):
    res = CliRunner().invoke(app, list(args))
    assert res.exit_code == code, res.output
    return res


def _sample(path, exp):
    with duckdb.connect(str(path), read_only=True) as con:
        return [r[0] for r in con.execute("select query_id from eval_human_sample where experiment = ?"
                                          " order by sample_order", [exp]).fetchall()]


def test_sample_is_seeded_per_experiment_and_skips_gold_and_failed(store):
    out = json.loads(_invoke("eval", "human", "sample", "--n", "4", "--seed", "3", "--json").stdout)
    assert [r["experiment"] for r in out] == list(EXPS)
    for r in out:
        assert r["candidates"] == len(QUERIES) and r["sampled"] == 4        # qgold, qfail never qualify
        assert sorted(r["conditions"]) == sorted(conditions(r["experiment"]))
    first = {e: _sample(store, e) for e in EXPS}
    assert all(len(set(q)) == 4 and set(q) <= set(QUERIES) for q in first.values())
    # the same draw again keeps the sample; another seed needs --replace
    again = json.loads(_invoke("eval", "human", "sample", "--n", "4", "--seed", "3", "--json").stdout)
    assert {r["status"] for r in again} == {"kept"}
    bad = _invoke("eval", "human", "sample", "--n", "4", "--seed", "4", code=2)
    assert "--replace" in bad.output
    _invoke("eval", "human", "sample", "--n", "4", "--seed", "4", "--replace")
    assert any(_sample(store, e) != first[e] for e in EXPS)
    # n larger than the candidates: every candidate once
    _invoke("eval", "human", "sample", "--n", "100", "--seed", "4", "--replace", "--experiment", "main")
    assert sorted(_sample(store, "main")) == QUERIES


def test_each_rater_sees_anonymous_answers_in_a_stable_own_order(store):
    from wag_cli.eval.human_store import load_item, next_item
    from wag_cli.eval.store import connect_eval

    _invoke("eval", "human", "sample", "--n", "6", "--seed", "1")
    con = connect_eval(store)
    orders = {}
    for rater in ("alice", "bob", "carol", "dave"):
        for qid in QUERIES:
            item = load_item(con, "main", qid, rater)
            assert sorted(item.conditions) == sorted(conditions("main"))
            assert load_item(con, "main", qid, rater).conditions == item.conditions      # stable on reload
            # the labels' texts are the conditions' answers in the shown order
            assert item.answers == [answer_text("main", qid, c) for c in item.conditions]
            public = json.dumps(item.public())
            assert not any(re.search(rf'"{c}"', public) for c in conditions("main"))     # no condition names
            orders[(rater, qid)] = tuple(item.conditions)
    assert len({orders[(r, "q01")] for r in ("alice", "bob", "carol", "dave")} | {orders[("alice", q)] for q in QUERIES}) > 1
    nxt = next_item(con, "alice")
    assert (nxt["done"], nxt["total"], nxt["item"]["position"]) == (0, 12, 1)
    con.close()


def _sheet_labels(md: str) -> dict[tuple[str, str], dict[str, str]]:
    """From the Markdown sheet alone: per (experiment, query) the label -> answer text shown."""
    out = {}
    for block in md.split("\n## ")[1:]:
        head = re.match(r"\d+ of \d+ — `([^`]+)` \(([^)]+)\)", block)
        answers = re.findall(r"### Answer ([A-Z])\n\n((?:>.*\n?)+)", block)
        out[(head.group(2), head.group(1))] = {
            lab: "\n".join(line[2:] if line.startswith("> ") else "" for line in text.strip("\n").split("\n"))
            for lab, text in answers}
    return out


def _preference(rater: str, exp: str, qid: str) -> list[str]:
    """The conditions best first as this test's raters rank them: alice follows the experiment order
    rotated by the query number, bob the same but swaps the first two on odd queries."""
    conds = conditions(exp)
    n = int(qid[1:])
    order = conds[n % len(conds):] + conds[:n % len(conds)]
    if rater == "bob" and n % 2:
        order[0], order[1] = order[1], order[0]
    return order


def _fill(path, md_path, rater, *, skip=()):
    shown = _sheet_labels(md_path.read_text())
    lines = []
    for line in path.read_text().splitlines():
        row = json.loads(line)
        key = (row["experiment"], row["query_id"])
        if key not in skip:
            text_of = {c: answer_text(key[0], key[1], c) for c in conditions(key[0])}
            label_of = {text: lab for lab, text in shown[key].items()}
            row["Overall"] = [label_of[text_of[c]] for c in _preference(rater, *key)]
            if rater == "alice" and key == ("main", "q01"):   # optional criterion, as {label: rank}
                row["Clarity"] = {lab: i for i, lab in enumerate(row["Overall"][::-1], start=1)}
        lines.append(json.dumps(row))
    path.write_text("\n".join(lines) + "\n")


def test_export_fill_import_then_report_prints_table_2_with_alpha_and_spearman(store, tmp_path):
    _invoke("eval", "human", "sample", "--n", "4", "--seed", "5")
    out = tmp_path / "sheets"
    _invoke("eval", "human", "export", "--rater", "alice", "--rater", "bob", "--out", str(out))
    md = (out / "alice.md").read_text()
    assert "How did I sleep before" in md and "7 days ending 2019-12-01" in md
    assert not any(f"({c})" in md or f" {c}\n" in md for c in conditions("main"))
    _fill(out / "alice.jsonl", out / "alice.md", "alice")
    sampled = {e: _sample(store, e) for e in EXPS}
    bob_skips = (("main", sampled["main"][0]),)             # bob leaves one query unranked
    _fill(out / "bob.jsonl", out / "bob.md", "bob", skip=bob_skips)
    res = _invoke("eval", "human", "import", str(out / "alice.jsonl"), str(out / "bob.jsonl"))
    assert "rater alice, 8 of 8 queries ranked" in res.output and "rater bob, 7 of 8 queries ranked" in res.output

    rep = json.loads(_invoke("eval", "report", "--json", "--out", str(tmp_path / "figs")).stdout)
    human = rep["human"]["experiments"]
    for exp in EXPS:
        k = len(conditions(exp))
        ranked = {"alice": sampled[exp], "bob": [q for q in sampled[exp] if (exp, q) not in bob_skips]}
        rank = {(r, q, c): _preference(r, exp, q).index(c) + 1 for r, qs in ranked.items() for q in qs
                for c in conditions(exp)}
        sec = human[exp]["criteria"]["Overall"]
        assert sec["columns"] == ["rater alice", "rater bob", "human average", "rubric"]
        for c in conditions(exp):
            for r, qs in ranked.items():
                assert sec["mean_rank"][c][f"rater {r}"] == pytest.approx(sum(rank[(r, q, c)] for q in qs) / len(qs))
            pair = {q: sum(rank[(r, q, c)] for r in ranked if q in ranked[r]) / sum(q in ranked[r] for r in ranked)
                    for q in sampled[exp]}
            assert sec["mean_rank"][c]["human average"] == pytest.approx(sum(pair.values()) / len(pair))
            assert sec["mean_rank"][c]["rubric"] == pytest.approx(
                sum(rubric_rank(exp, q, c) for q in sampled[exp]) / len(sampled[exp]))
        assert sec["n_queries"] == {"rater alice": 4, "rater bob": 4 - (exp == "main"), "human average": 4, "rubric": 4}
        # alpha: units (query, condition), the matrix built here from the rankings this test wrote
        units = [(q, c) for q in sorted(sampled[exp]) for c in sorted(conditions(exp))]
        matrix = [[rank.get((r, q, c)) for q, c in units] for r in ("alice", "bob")]
        assert sec["alpha"]["value"] == pytest.approx(alpha(matrix, "ordinal"))
        assert (sec["alpha"]["n_raters"], sec["alpha"]["n_units"]) == (2, 4 * k)
        # Spearman between the mean human rank and the rubric rank over (query, condition) pairs = scipy
        human_r, judge_r = [], []
        for q, c in units:
            got = [rank[(r, q, c)] for r in ranked if q in ranked[r]]
            human_r.append(sum(got) / len(got))
            judge_r.append(rubric_rank(exp, q, c))
        ref = spearmanr(human_r, judge_r)
        s = sec["spearman"]["rubric"]
        assert s["rho"] == pytest.approx(ref.statistic) and s["p_value"] == pytest.approx(ref.pvalue)
        assert s["n_pairs"] == 4 * k
    # the optional criterion alice ranked on one query is its own table (Tables 21-22 layout)
    clar = human["main"]["criteria"]["Clarity"]
    assert clar["n_queries"]["rater alice"] == 1 and clar["alpha"]["value"] is None
    names = sorted(p.rsplit("/", 1)[1] for p in rep["figures"])
    assert {"human_main_mean_ranks.png", "human_main_heatmap.png", "human_exp_l_heatmap.png"} <= set(names)

    text = " ".join(_invoke("eval", "report", "--out", str(tmp_path / "figs")).stdout.split())  # Rich wraps titles
    assert "main: mean Overall rank (1 = best), human raters beside the judges" in text
    for col in ("rater alice", "rater bob", "human average", "rubric"):
        assert col in text
    a = human["main"]["criteria"]["Overall"]["alpha"]["value"]
    assert f"Krippendorff's alpha (ordinal, Overall) between 2 raters: {a:.3f}" in text
    rho = human["main"]["criteria"]["Overall"]["spearman"]["rubric"]["rho"]
    assert f"Spearman (mean human rank vs rubric, Overall): rho = {rho:.3f}" in text


def _write(path, rows):
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")


def test_import_names_file_and_line_and_stores_nothing_on_error(store, tmp_path):
    _invoke("eval", "human", "sample", "--n", "2", "--seed", "5", "--experiment", "main")
    _invoke("eval", "human", "export", "--rater", "eve", "--out", str(tmp_path))
    rows = [json.loads(x) for x in (tmp_path / "eve.jsonl").read_text().splitlines()]
    labels = rows[0]["labels"]
    k = len(labels)
    good = dict(rows[0], Overall=labels)
    cases = {
        "tie": dict(rows[1], Overall=[labels[0]] * k),
        "dict_tie": dict(rows[1], Overall={lab: 1 for lab in labels}),
        "unknown_label": dict(rows[1], Overall=labels[:-1] + ["Z"]),
        "missing_label": dict(rows[1], Overall=labels[:-1]),
        "unknown_query": dict(rows[1], query_id="nope", Overall=labels),
        "no_overall": dict(rows[1], Clarity=labels),
        "other_rater": dict(rows[1], rater="mallory", Overall=labels),
        "bad_criterion": dict(rows[1], Overal=labels),
    }
    expected = {"tie": "listed more than once", "dict_tie": "share a rank", "unknown_label": "unknown label 'Z'",
                "missing_label": "not ranked", "unknown_query": "unknown query 'nope'", "no_overall": "Overall is required",
                "other_rater": "differs from 'eve'", "bad_criterion": "unknown field 'Overal'"}
    for name, bad in cases.items():
        f = tmp_path / f"{name}.jsonl"
        _write(f, [good, bad])
        res = _invoke("eval", "human", "import", str(f), code=2)
        assert f"{name}.jsonl:2:" in res.output and expected[name] in res.output, (name, res.output)
    f = tmp_path / "broken.jsonl"
    _write(f, [good, '{"rater": "eve", '])
    assert "broken.jsonl:2: not valid JSON" in _invoke("eval", "human", "import", str(f), code=2).output
    with duckdb.connect(str(store), read_only=True) as con:
        assert con.execute("select count(*) from eval_human_rankings").fetchone()[0] == 0
    # the good line alone imports; a re-import replaces instead of duplicating
    _write(f, [good])
    _invoke("eval", "human", "import", str(f))
    _invoke("eval", "human", "import", str(f))
    with duckdb.connect(str(store), read_only=True) as con:
        got = con.execute("select rank, label, source from eval_human_rankings order by rank").fetchall()
    assert got == [(i + 1, lab, "file:broken.jsonl") for i, lab in enumerate(labels)]


def test_figure_helpers_rank_axis_from_one_and_readable_labels():
    import matplotlib.pyplot as plt

    from wag_cli.eval.figures import rank_axis, text_colour

    # WCAG relative luminance: white/yellow cells get dark text, dark blue/purple cells light text
    assert text_colour((1.0, 1.0, 1.0, 1.0)) == "black" and text_colour((0.99, 0.91, 0.14)) == "black"
    assert text_colour((0.0, 0.0, 0.0)) == "white" and text_colour((0.27, 0.0, 0.33)) == "white"
    # every viridis colour: the chosen text has a contrast ratio of at least 4.5 (WCAG AA)
    cmap = plt.get_cmap("viridis_r")

    def lum(rgb):
        lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb[:3]]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    for i in range(0, 256, 5):
        rgb = cmap(i / 255)
        cell, text = lum(rgb), 0.0 if text_colour(rgb) == "black" else 1.0
        ratio = (max(cell, text) + 0.05) / (min(cell, text) + 0.05)
        assert ratio >= 4.5, (rgb, ratio)
    fig, ax = plt.subplots()
    rank_axis(ax, 4)
    assert ax.get_ylim() == (1, 4) and list(ax.get_yticks()) == [1, 2, 3, 4]
    plt.close(fig)
