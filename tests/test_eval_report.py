"""`wag eval report` and the figures (DESIGN.md §10, §6): figures computed by the report views on
rankings written here by hand, against the same figures worked out by hand and with scipy."""

from __future__ import annotations

import json

import duckdb
import matplotlib.image as mpimg
import pytest
from scipy.stats import friedmanchisquare
from typer.testing import CliRunner

from wag_cli.eval.judge import CRITERIA
from wag_cli.eval.report import build_report
from wag_cli.eval.store import connect_eval

CONDS = ["base", "rag", "wag"]
# Overall ranks per query (base, rag, wag); no ties in 'main'
MAIN = {"q1": (3, 2, 1), "q2": (2, 3, 1), "q3": (3, 1, 2), "q4": (3, 2, 1), "q5": (1, 3, 2)}
# exp_l: conditions w_global, w_local, w_final; q1 ties w_local and w_final for first
EXP_L = {"q1": (3, 1.5, 1.5), "q2": (1, 2, 3)}
QUERIES = {  # query -> (dataset, category, window_days, abnormal_level)
    "q1": ("pmdata", "Trend Analysis", 7, "high"),
    "q2": ("pmdata", "Data Retrieval", None, "low"),
    "q3": ("lifesnaps", "Trend Analysis", 14, None),
    "q4": ("lifesnaps", "Anomaly Detection", 7, "missing"),
    "q5": ("globem", "Data Retrieval", 30, "medium"),
}


def _store(tmp_path):
    con = connect_eval(tmp_path / "eval.duckdb")
    for q, (ds, cat, k, lvl) in QUERIES.items():
        con.execute("insert into eval_queries (query_id, kind, dataset, subject_id, metrics, reference_day,"
                    " window_days, abnormal_level, category, openness, question) values (?, 'single', ?, 's', ['m'],"
                    " date '2020-01-01', ?, ?, ?, 0.5, 'q?')", [q, ds, k, lvl, cat])
    rows = []
    for exp, table, conds in (("main", MAIN, CONDS), ("exp_l", EXP_L, ["w_global", "w_local", "w_final"])):
        for q, ranks in table.items():
            for cond, r in zip(conds, ranks):
                con.execute("insert into eval_answers (query_id, experiment, condition, answer) values (?, ?, ?, 'a')",
                            [q, exp, cond])
                for crit in CRITERIA:
                    value = 1.0 if crit == "Safety" else (float(r) if crit == "Overall" else 2.0)
                    rows.append((q, exp, "rubric", "rubric", crit, cond, value, None, True, None))
    con.executemany("insert into eval_judgements (query_id, experiment, judge, pass, criterion, condition, rank,"
                    " score, valid, note) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    return con


def test_mean_ranks_win_rates_and_friedman_equal_hand_and_scipy(tmp_path):
    con = _store(tmp_path)
    rep = build_report(con)
    assert [s["judge"] for s in rep["judges"]] == ["rubric"]
    main = rep["judges"][0]["experiments"]["main"]
    # mean Overall rank by hand: base (3+2+3+3+1)/5 = 2.4, rag (2+3+1+2+3)/5 = 2.2, wag (1+1+2+1+2)/5 = 1.4
    assert main["mean_rank"]["base"]["Overall"] == pytest.approx(2.4)
    assert main["mean_rank"]["rag"]["Overall"] == pytest.approx(2.2)
    assert main["mean_rank"]["wag"]["Overall"] == pytest.approx(1.4)
    assert main["mean_rank"]["wag"]["Safety"] == pytest.approx(1.0)
    # wins by hand: wag first in q1 q2 q4, rag in q3, base in q5
    assert main["win_rate"] == pytest.approx({"base": 0.2, "rag": 0.2, "wag": 0.6})
    # Friedman by hand (no ties): R = (12, 11, 7); chi2 = 12/(n k (k+1)) sum R^2 - 3 n (k+1)
    n, k = 5, 3
    chi2 = 12 / (n * k * (k + 1)) * (12 ** 2 + 11 ** 2 + 7 ** 2) - 3 * n * (k + 1)
    sp = friedmanchisquare(*[[MAIN[q][j] for q in sorted(MAIN)] for j in range(k)])
    f = main["friedman"]
    assert f["statistic"] == pytest.approx(chi2) == pytest.approx(sp.statistic)
    assert f["p_value"] == pytest.approx(sp.pvalue)
    assert f["kendall_w"] == pytest.approx(chi2 / (n * (k - 1)))
    assert (f["n"], f["k"]) == (5, 3)


def test_ties_for_first_split_the_win(tmp_path):
    con = _store(tmp_path)
    exp_l = build_report(con)["judges"][0]["experiments"]["exp_l"]
    # q1: w_local and w_final tie for first (1/2 each); q2: w_global wins
    assert exp_l["win_rate"] == pytest.approx({"w_global": 0.5, "w_local": 0.25, "w_final": 0.25})
    assert exp_l["friedman"]["n"] == 2
    assert exp_l["conditions"] == ["w_global", "w_local", "w_final"]      # the experiment's order, not by name


def test_breakdown_by_dataset_category_window_and_level(tmp_path):
    con = _store(tmp_path)
    bd = build_report(con)["judges"][0]["experiments"]["main"]["breakdown"]
    cell = {(r["dimension"], r["level"], r["condition"]): (r["mean_rank"], r["win_rate"], r["n_queries"]) for r in bd}
    # pmdata = q1, q2: wag ranks 1, 1; base 3, 2
    assert cell[("dataset", "pmdata", "wag")] == pytest.approx((1.0, 1.0, 2))
    assert cell[("dataset", "pmdata", "base")] == pytest.approx((2.5, 0.0, 2))
    # Trend Analysis = q1, q3: rag ranks 2, 1 and wins q3
    assert cell[("category", "Trend Analysis", "rag")] == pytest.approx((1.5, 0.5, 2))
    # window 7 d = q1, q4; window all = q2
    assert cell[("window", "7 d", "wag")] == pytest.approx((1.0, 1.0, 2))
    assert cell[("window", "all", "base")] == pytest.approx((2.0, 0.0, 1))
    # a query without an abnormal level (multi-metric tuple) is its own level
    assert cell[("abnormal_level", "multi-metric", "rag")] == pytest.approx((1.0, 1.0, 1))


def test_incomplete_or_invalid_rankings_are_left_out_and_counted(tmp_path):
    con = _store(tmp_path)
    # a model judge: q1 valid in both passes; q2 forward invalid (rank NULL), reversed valid for 2 of 3 only
    rows = []
    for cond, r in zip(CONDS, (2, 3, 1)):
        for p in ("forward", "reversed"):
            rows.append(("q1", "main", "model:m", p, "Overall", cond, float(r), None, True, None))
        rows.append(("q2", "main", "model:m", "forward", "Overall", cond, None, None, False, "not a permutation"))
    for cond, r in zip(["base", "rag"], (1, 2)):
        rows.append(("q2", "main", "model:m", "reversed", "Overall", cond, float(r), None, True, None))
    con.executemany("insert into eval_judgements (query_id, experiment, judge, pass, criterion, condition, rank,"
                    " score, valid, note) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    rep = build_report(con, "model:m")
    sec = rep["judges"][0]
    assert sec["label"].startswith("model judge")
    main = sec["experiments"]["main"]
    assert main["n_queries"] == 1                           # q2 is incomplete
    assert main["mean_rank"]["wag"]["Overall"] == 1.0
    assert main["win_rate"] == {"base": 0.0, "rag": 0.0, "wag": 1.0}
    validity = {r["pass"]: (r["n_queries"], r["n_valid"], r["n_invalid"]) for r in sec["validity"]}
    assert validity == {"forward": (2, 1, 1), "reversed": (2, 2, 0)}
    # judges are never mixed: the rubric section is not in this report
    assert [s["judge"] for s in rep["judges"]] == ["model:m"]
    with pytest.raises(Exception, match="no rankings by judge"):
        build_report(con, "model:other")


def test_gold_accuracy_per_condition_and_category(tmp_path):
    con = _store(tmp_path)
    con.execute("update eval_queries set gold_kind = case when query_id in ('q1', 'q2') then 'mean' else 'spearman' end")
    con.executemany("insert into eval_gold_scores (query_id, condition, expected, found, tolerance, correct)"
                    " values (?, ?, 1, 1, 0.01, ?)",
                    [("q1", "wag", True), ("q3", "wag", False), ("q2", "wag", True), ("q1", "base", False)])
    gold = {(r["dimension"], r["level"], r["condition"]): (r["n"], r["n_correct"], r["accuracy"])
            for r in build_report(con)["gold_accuracy"]}
    assert gold[("all", "all", "wag")] == pytest.approx((3, 2, 2 / 3))
    assert gold[("category", "Trend Analysis", "wag")] == pytest.approx((2, 1, 0.5))   # q1 right, q3 wrong
    assert gold[("gold_kind", "mean", "wag")] == pytest.approx((2, 2, 1.0))            # q1, q2
    assert gold[("all", "all", "base")] == pytest.approx((1, 0, 0.0))


def test_views_are_queryable_by_an_analyst(tmp_path):
    con = _store(tmp_path)
    build_report(con)
    con.close()
    with duckdb.connect(str(tmp_path / "eval.duckdb"), read_only=True) as ro:
        got = ro.execute("select condition, win_rate from eval_report_win_rate where experiment = 'main'"
                         " order by condition").fetchall()
    assert [c for c, _ in got] == ["base", "rag", "wag"]
    assert [w for _, w in got] == pytest.approx([0.2, 0.2, 0.6])


def _is_png(path) -> bool:
    with open(path, "rb") as fh:
        sig = fh.read(8)
    img = mpimg.imread(path)
    return sig == b"\x89PNG\r\n\x1a\n" and img.ndim == 3 and img.shape[0] > 100 and img.shape[1] > 100


def test_report_cli_json_and_figures(tmp_path, monkeypatch):
    from wag_cli.cli import app

    _store(tmp_path).close()
    monkeypatch.setenv("WAG_EVAL_DB", str(tmp_path / "eval.duckdb"))
    res = CliRunner().invoke(app, ["eval", "report", "--json", "--out", str(tmp_path / "figs")])
    assert res.exit_code == 0, res.output
    rep = json.loads(res.stdout)
    names = sorted(p.rsplit("/", 1)[1] for p in rep["figures"])
    assert names == ["rubric_exp_l_breakdown.png", "rubric_main_breakdown.png", "rubric_mean_ranks.png",
                     "rubric_win_rates.png"]
    assert all(_is_png(p) for p in rep["figures"])
    bad = CliRunner().invoke(app, ["eval", "report", "--judge", "model:none"])
    assert bad.exit_code == 2 and "no rankings by judge" in bad.output


@pytest.fixture
def weights_db(tmp_path):
    path = tmp_path / "w.duckdb"
    con = duckdb.connect(str(path))
    con.execute("create table edge_weights (subject_id varchar, node_x varchar, node_y varchar, p_prior double,"
                " mu_pop double, mu_s double, w_global double, fallback varchar, r_s_signed double, n_s integer,"
                " r_pop_signed double, n_pop integer)")
    rows = [  # s1/x has 2 individual rows, s1/z 1, s2/x 3 -> the default is s2/x
        ("s1", "x", "a", 0.4, 0.5, 0.6, 0.6, "individual"), ("s1", "x", "b", 0.6, 0.55, 0.5, 0.5, "individual"),
        ("s1", "z", "a", 0.5, 0.5, 0.5, 0.5, "individual"), ("s2", "x", "a", 0.3, 0.4, 0.45, 0.45, "individual"),
        ("s2", "x", "b", 0.7, 0.6, 0.65, 0.65, "individual"), ("s2", "x", "c", 0.5, 0.5, 0.52, 0.52, "individual"),
        ("s2", "x", "d", 0.5, None, None, 0.5, "prior"),
    ]
    con.executemany("insert into edge_weights values (?, ?, ?, ?, ?, ?, ?, ?, null, 0, null, 0)", rows)
    con.close()
    return path


def test_weight_figures_from_stored_stages(tmp_path, weights_db):
    from wag_cli.eval.figures import default_primary, stage_distribution_figure, stage_shift_figure
    from wag_cli.errors import UsageError

    with duckdb.connect(str(weights_db), read_only=True) as wh:
        assert default_primary(wh, None) == ("s2", "x")
        assert default_primary(wh, "s1") == ("s1", "x")
        assert default_primary(wh, None, "z") == ("s1", "z")
        with pytest.raises(UsageError, match="primary node 'w'"):
            default_primary(wh, "s1", "w")
        shift = stage_shift_figure(wh, "s2", "x", tmp_path / "f")
        dist = stage_distribution_figure(wh, None, tmp_path / "f")
        with pytest.raises(UsageError):
            stage_shift_figure(wh, "s2", "nope", tmp_path / "f")
    assert shift.name == "hbm_stage_shifts_s2_x.png" and _is_png(shift)
    assert dist.name == "hbm_stage_distributions.png" and _is_png(dist)
