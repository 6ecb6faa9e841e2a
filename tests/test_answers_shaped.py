"""Answers shaped by the question (issue 8 item 3; DESIGN.md §5-§8): relationships, influences,
trends, comparisons, explicit periods and the overview, on the real excerpts (``built_db``).

Every number is recomputed here from ``metric_values`` with scipy / pandas, independently of the
warehouse's macros and of ``wag_cli/sql``. The paraphrase pairs at the end need no warehouse.
"""

from __future__ import annotations

import json
from datetime import date, timedelta

import duckdb
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from wag_cli.pipeline import answer_question
from wag_cli.query.offline import parse_offline

SUBJECT = "pmdata:p16"            # steps, sleep and resting heart rate on ~150 days
AS_OF = date(2020, 1, 15)        # mid-record: correlations must use days <= t only


@pytest.fixture(scope="module")
def values(built_db) -> pd.DataFrame:
    con = duckdb.connect(str(built_db), read_only=True)
    try:
        df = con.execute("select dataset, subject_id, metric_id, day, value from metric_values "
                         "where value is not null").fetchdf()
    finally:
        con.close()
    df["day"] = pd.to_datetime(df["day"]).dt.date
    return df


@pytest.fixture
def wh(built_db, monkeypatch):
    monkeypatch.setenv("WAG_DB", str(built_db))
    return built_db


def _series(values, subject, metric, start=None, end=None) -> pd.Series:
    v = values[(values.subject_id == subject) & (values.metric_id == metric)]
    if start is not None:
        v = v[v.day >= start]
    if end is not None:
        v = v[v.day <= end]
    return v.set_index("day")["value"].sort_index()


def _paired(values, subject, x, y, end):
    a, b = _series(values, subject, x, end=end), _series(values, subject, y, end=end)
    both = pd.concat([a.rename("x"), b.rename("y")], axis=1, join="inner")
    return both["x"].to_numpy(), both["y"].to_numpy()


# --------------------------------------------------------------------------- Metric Relationships


def test_relationship_is_the_pairs_as_of_correlation(wh, values):
    res = answer_question("Do I sleep better on days when I walk more?", SUBJECT, as_of=AS_OF, offline=True)
    assert res.parsed.intent == "relationship"
    rels = {(r["x"], r["y"]): r for r in res.analysis["relationships"]}
    rel = rels[("total_sleep_duration", "steps_taken")]
    x, y = _paired(values, SUBJECT, "total_sleep_duration", "steps_taken", AS_OF)
    rho = stats.spearmanr(x, y).statistic
    assert rel["individual"]["n"] == len(x)
    assert rel["individual"]["rho"] == pytest.approx(rho, abs=1e-9)
    assert rel["as_of"] == AS_OF
    # population: every subject of the dataset, paired days up to t itself (DESIGN.md §6 "As of", var
    # population_as_of = 'exact', the default since issue 31), ranks over the pooled sample
    snapshot = AS_OF
    assert rel["population"]["as_of"] == snapshot
    ds = values[(values.dataset == "pmdata") & (values.day <= snapshot)]
    px, py = [], []
    for s in ds.subject_id.unique():
        a, b = _paired(ds, s, "total_sleep_duration", "steps_taken", snapshot)
        px.append(a)
        py.append(b)
    px, py = np.concatenate(px), np.concatenate(py)
    assert rel["population"]["n"] == len(px)
    assert rel["population"]["rho"] == pytest.approx(stats.spearmanr(px, py).statistic, abs=1e-9)
    # the answer quotes it, with the day it is as of
    assert f"{rho:+.2f} over {len(x)} days" in res.answer.text
    assert "as of 2020-01-15" in res.answer.text
    assert f"{len(px)} subject-days of" in res.answer.text and "up to 2020-01-15" in res.answer.text
    # the pooled sample includes this subject's own days (a user review read "Others" as excluding them)
    assert SUBJECT in set(ds.subject_id)
    assert "Everyone in the dataset" in res.answer.text and "(you included)" in res.answer.text
    # time asleep (the companion of time in bed) is paired as well
    asleep = rels[("asleep_duration", "steps_taken")]
    ax, ay = _paired(values, SUBJECT, "asleep_duration", "steps_taken", AS_OF)
    assert asleep["individual"]["rho"] == pytest.approx(stats.spearmanr(ax, ay).statistic, abs=1e-9)


def test_pooled_instruments_are_named_next_to_the_population_figure(wh, values):
    """Found by a user review: GLOBEM's pooled depression ranks mix INS-W_1's single 0-3 item with
    the 0-6 sub-score of the later studies; the answer now says so beside the population rho. A
    PMData pair, one source field per metric, has no such line."""
    subject = "globem:INS-W_3/INS-W_665"
    res = answer_question("Am I more depressed when I spend more time at home?", subject, offline=True)
    rel = {(r["x"], r["y"]): r for r in res.analysis["relationships"]}[("depression", "time_at_home")]
    # the pooled sample really spans both studies' instruments (from metric_values, by study prefix)
    dep = values[(values.dataset == "globem") & (values.metric_id == "depression")]
    studies = {s.split(":")[1].split("/")[0] for s in dep.subject_id.unique()}
    assert {"INS-W_1", "INS-W_3"} <= studies
    assert rel["population"]["rho"] is not None
    assert "0-3 scale" in rel["population"]["pooled_sources"] and "0-6" in rel["population"]["pooled_sources"]
    assert "The pooled sample combines several source fields of this dataset" in res.answer.text
    other = answer_question("Do I sleep better on days when I walk more?", SUBJECT, as_of=AS_OF, offline=True)
    assert all("pooled_sources" not in r["population"] for r in other.analysis["relationships"])
    assert "pooled sample combines" not in other.answer.text


def test_relationship_without_evidence_says_why(wh, values):
    # p16's sleep-onset latency is constant: no correlation, and the answer says why
    res = answer_question("Is my sleep onset latency related to my steps?", SUBJECT, as_of=AS_OF, offline=True)
    (rel,) = res.analysis["relationships"]
    x, _y = _paired(values, SUBJECT, "sleep_onset_latency", "steps_taken", AS_OF)
    assert len(x) >= 10 and len(np.unique(x)) == 1          # the data: always 0 up to t
    assert rel["individual"]["rho"] is None
    assert "sleep onset latency did not vary" in rel["individual"]["reason"]
    assert "sleep onset latency did not vary" in res.answer.text


def test_pair_without_an_edge_says_so(wh, built_db):
    con = duckdb.connect(str(built_db), read_only=True)
    try:
        edge = con.execute("select count(*) from edges where node_a = 'bedtime_start_time' "
                           "and node_b = 'distance_traveled'").fetchone()[0]
    finally:
        con.close()
    assert edge == 0                                        # the seed judges them unrelated
    res = answer_question("Is my bedtime related to my distance traveled?", SUBJECT, offline=True)
    rel = {(r["x"], r["y"]): r for r in res.analysis["relationships"]}[("bedtime_start_time", "distance_traveled")]
    assert rel["has_edge"] is False and rel["individual"]["rho"] is None
    assert "unrelated (no edge)" in res.answer.text


def test_what_affects_x_most_lists_top_neighbours_with_correlations(wh, values):
    res = answer_question("What affects my deep sleep the most?", SUBJECT, as_of=AS_OF, offline=True)
    assert res.parsed.intent == "influences"
    inf = res.analysis["influences"]
    ws = [n["w_global"] for n in inf["neighbours"]]
    assert 3 <= len(ws) <= 5 and ws == sorted(ws, reverse=True)
    for n in inf["neighbours"]:
        x, y = _paired(values, SUBJECT, "deep_sleep_duration", n["metric_id"], AS_OF)
        assert len(np.unique(y)) >= 2                       # no constant or empty candidate
        if n["individual"]["rho"] is not None:
            assert n["individual"]["n"] == len(x)
            assert n["individual"]["rho"] == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-9)
    assert "What goes with your deep sleep duration most" in res.answer.text


def test_what_affects_x_most_also_lists_the_strongest_own_correlations(wh, values, built_db):
    """Found by a user review: with no population stage the ranking is by prior only, and par_1's
    strongest own correlations with deep sleep (n = 320) were not shown. The answer now lists the
    neighbours with the largest |rho| of the person's own paired days up to t, recomputed here."""
    subject = "ifh_affect:par_1"
    res = answer_question("What affects my deep sleep the most?", subject, offline=True)
    t = res.parsed.reference_day
    con = duckdb.connect(str(built_db), read_only=True)
    try:
        nbrs = [r[0] for r in con.execute(
            "select case when node_a = 'deep_sleep_duration' then node_b else node_a end from edges "
            "where 'deep_sleep_duration' in (node_a, node_b)").fetchall()]
    finally:
        con.close()
    rhos = {}
    for y in nbrs:
        a, b = _paired(values, subject, "deep_sleep_duration", y, t)
        if len(a) >= 10 and len(np.unique(a)) > 1 and len(np.unique(b)) > 1:
            rhos[y] = stats.spearmanr(a, b).statistic
    expected = sorted(rhos, key=lambda m: (-abs(rhos[m]), m))[:5]
    own = res.analysis["influences"]["own"]
    assert [o["metric_id"] for o in own] == expected
    for o in own:
        assert o["rho"] == pytest.approx(rhos[o["metric_id"]], abs=1e-9)
    assert "Strongest in your own data" in res.answer.text


# --------------------------------------------------------------------------- Trend Analysis


def test_trend_slope_equals_scipy_theilslopes(wh, values):
    res = answer_question("Is my resting heart rate trending down over 3 months?", SUBJECT, offline=True)
    start, end = date(2020, 1, 2), date(2020, 3, 31)          # 90 days ending on the last day
    assert (res.parsed.resolved_period.start, res.parsed.reference_day) == (start, end)
    (trend,) = [t for t in res.analysis["trends"] if t["metric_id"] == "resting_heart_rate"]
    s = _series(values, SUBJECT, "resting_heart_rate", start, end)
    x = np.array([(d - start).days for d in s.index], dtype=float)
    ts = stats.theilslopes(s.to_numpy(), x)
    assert trend["n_days"] == len(s)
    assert trend["slope_per_week"] == pytest.approx(7 * ts.slope, abs=1e-9)
    assert trend["low_per_week"] == pytest.approx(7 * ts.low_slope, abs=1e-9)
    assert trend["high_per_week"] == pytest.approx(7 * ts.high_slope, abs=1e-9)
    flat = ts.low_slope <= 0 <= ts.high_slope
    assert trend["direction"] == ("flat" if flat else "up" if ts.low_slope > 0 else "down")
    half = 45
    first = s[[d < start + timedelta(days=half) for d in s.index]]
    second = s[[d > end - timedelta(days=half) for d in s.index]]
    assert trend["first_half_mean"] == pytest.approx(first.mean(), abs=1e-9)
    assert trend["second_half_mean"] == pytest.approx(second.mean(), abs=1e-9)
    assert (trend["first_half_days"], trend["second_half_days"]) == (len(first), len(second))
    assert "per week" in res.answer.text and "Theil" in res.answer.text


def test_trend_with_ties_equals_scipy(wh, values):
    """Integer scores have many ties: Sen's tie correction of the interval must match scipy."""
    res = answer_question("Has my readiness been going up over the past 2 months?", SUBJECT, offline=True)
    (trend,) = [t for t in res.analysis["trends"] if t["metric_id"] == "readiness"]
    start = res.parsed.resolved_period.start
    s = _series(values, SUBJECT, "readiness", start, res.parsed.reference_day)
    assert s.duplicated().any()
    ts = stats.theilslopes(s.to_numpy(), np.array([(d - start).days for d in s.index], dtype=float))
    assert (trend["low_per_week"], trend["high_per_week"]) == pytest.approx((7 * ts.low_slope, 7 * ts.high_slope),
                                                                          abs=1e-9)


# --------------------------------------------------------------------------- Comparative Insight


def test_this_week_vs_last_week_means_equal_pandas(wh, values):
    res = answer_question("How do my steps this week compare to last week?", SUBJECT, as_of=AS_OF, offline=True)
    cmp_ = res.analysis["comparison"]
    assert cmp_["kind"] == "previous"
    assert (cmp_["a"]["start"], cmp_["a"]["end"]) == ("2020-01-09", "2020-01-15")
    assert (cmp_["b"]["start"], cmp_["b"]["end"]) == ("2020-01-02", "2020-01-08")
    (m,) = cmp_["metrics"]
    this = _series(values, SUBJECT, "steps_taken", date(2020, 1, 9), date(2020, 1, 15))
    last = _series(values, SUBJECT, "steps_taken", date(2020, 1, 2), date(2020, 1, 8))
    assert (m["a_days"], m["b_days"]) == (len(this), len(last))
    assert m["a_mean"] == pytest.approx(this.mean(), abs=1e-9)
    assert m["b_mean"] == pytest.approx(last.mean(), abs=1e-9)
    assert m["difference"] == pytest.approx(this.mean() - last.mean(), abs=1e-9)
    assert "this week" in res.answer.text and "last week" in res.answer.text


@pytest.mark.parametrize("question", ["How do my steps compare before and after 2020-01-01?",
                                      "Did my step count change after 2020-01-01?"])
def test_before_after_change_is_after_minus_before(wh, values, question):
    """User review: the before/after answer printed 'difference +583' for a fall; the change is after
    minus before, and "did X change after D" is that comparison too."""
    res = answer_question(question, SUBJECT, as_of=AS_OF, offline=True)
    cmp_ = res.analysis["comparison"]
    assert cmp_["kind"] == "before_after"
    before = _series(values, SUBJECT, "steps_taken", end=date(2019, 12, 31))
    after = _series(values, SUBJECT, "steps_taken", date(2020, 1, 1), AS_OF)
    (m,) = cmp_["metrics"]
    assert m["a_mean"] == pytest.approx(before.mean(), abs=1e-9)
    assert m["b_mean"] == pytest.approx(after.mean(), abs=1e-9)
    change = after.mean() - before.mean()
    sign = "+" if change > 0 else "-"
    assert f"change after 2020-01-01: {sign}{abs(change):,.0f} steps" in res.answer.text


def test_default_reference_day_ignores_profile_rows(built_db):
    """Profile metrics (age, BMI: category Demographic) repeat on every day of some exports; the
    default reference day is the last day of a measured metric (user review)."""
    from wag_cli.pipeline import check_subject

    con = duckdb.connect(str(built_db), read_only=True)
    try:
        rows = con.execute(
            "select v.subject_id, max(v.day) filter (where c.category <> 'Demographic') as measured, max(v.day) as any_day "
            "from metric_values v join metric_catalog c using (metric_id) group by 1").fetchall()
        assert any(m is not None and a > m for _s, m, a in rows), "the excerpts have such a subject"
        for subject, measured, _any in rows:
            if measured is not None:
                assert check_subject(con, subject)["last_day"] == measured, subject
    finally:
        con.close()


def test_weekends_vs_weekdays_in_hours_equal_pandas(wh, values):
    res = answer_question("How many hours do I sleep on weekends compared with weekdays?", SUBJECT, offline=True)
    cmp_ = res.analysis["comparison"]
    assert cmp_["kind"] == "weekday_split"
    s = _series(values, SUBJECT, "asleep_duration")
    weekend = s[[d.isoweekday() >= 6 for d in s.index]]
    weekday = s[[d.isoweekday() <= 5 for d in s.index]]
    (m,) = [m for m in cmp_["metrics"] if m["metric_id"] == "asleep_duration"]
    assert (m["a_days"], m["b_days"]) == (len(weekend), len(weekday))
    assert m["a_mean"] == pytest.approx(weekend.mean(), abs=1e-9)
    assert m["b_mean"] == pytest.approx(weekday.mean(), abs=1e-9)
    assert f"{weekend.mean() / 60:.1f} h" in res.answer.text            # units follow the question


def test_a_comparison_says_higher_lower_or_about_the_same(wh, values):
    """A user review: yes/no comparisons got only a signed difference. Each metric now gets a verdict
    from Cohen's d (difference / pooled within-period SD), recomputed here with pandas."""
    res = answer_question("Do I walk more on weekends than on weekdays?", SUBJECT, offline=True)
    (m,) = [m for m in res.analysis["comparison"]["metrics"] if m["metric_id"] == "steps_taken"]
    s = _series(values, SUBJECT, "steps_taken")
    we, wd = s[[d.isoweekday() >= 6 for d in s.index]], s[[d.isoweekday() <= 5 for d in s.index]]
    pooled = np.sqrt(((len(we) - 1) * we.var(ddof=1) + (len(wd) - 1) * wd.var(ddof=1)) / (len(we) + len(wd) - 2))
    d = (we.mean() - wd.mean()) / pooled
    assert m["effect_size"] == pytest.approx(d, abs=1e-9)
    verdict = "about the same" if abs(d) < 0.2 else \
        f"weekends: {'slightly ' if abs(d) < 0.5 else ''}{'higher' if d > 0 else 'lower'} than weekdays"
    assert f"— {verdict} (the difference is {abs(d):.2f} of your day-to-day SD)" in " ".join(res.answer.text.split())


# --------------------------------------------------------------------------- explicit periods


def test_between_d1_and_d2_covers_exactly_those_days(wh, values):
    res = answer_question("What were my steps between 2020-01-01 and 2020-01-15?", SUBJECT, offline=True)
    assert (res.parsed.reference_day, res.parsed.window_days) == (date(2020, 1, 15), 15)
    (p,) = res.subgraph.primaries
    s = _series(values, SUBJECT, "steps_taken", date(2020, 1, 1), date(2020, 1, 15))
    assert [r["day"] for r in p.data.daily] == list(s.index)
    assert p.data.n_window_days == len(s)
    assert p.data.window_mean == pytest.approx(s.mean(), abs=1e-9)
    assert res.answer.text.startswith("From 2020-01-01 to 2020-01-15")
    before = _series(values, SUBJECT, "steps_taken", end=date(2019, 12, 31))
    if getattr(p.data, "n_baseline_days", None):
        # the usual level it is compared with: the days before the period
        assert p.data.n_baseline_days == len(before)
        assert p.data.baseline_mean == pytest.approx(before.mean(), abs=1e-9)
        # the verdict names that baseline: "your usual X (the N days before)" (issue 27)
        assert f"(the {len(before)} days before" in res.answer.text


# --------------------------------------------------------------------------- overview, framing


def test_overview_is_answered_with_the_most_abnormal_metrics(wh, values, built_db):
    res = answer_question("How am I doing overall?", SUBJECT, offline=True)
    assert res.parsed.intent == "overview" and res.parsed.openness == 1.0
    t = res.parsed.reference_day
    start = res.parsed.resolved_period.start
    con = duckdb.connect(str(built_db), read_only=True)
    try:
        kinds = dict(con.execute("select metric_id, data_kind || '/' || category from nodes").fetchall())
    finally:
        con.close()
    zeta = {}
    for m, g in values[(values.subject_id == SUBJECT) & (values.day <= t)].groupby("metric_id"):
        if kinds.get(m, "").startswith("numeric/") and not kinds[m].endswith("Demographic"):
            sd = g.value.std(ddof=1)
            w = g[g.day >= start]
            if len(w) and sd > 0:
                zeta[m] = float((w.value - g.value.mean()).abs().mean() / sd)
    top = res.analysis["overview"][0]
    assert top["metric_id"] == max(zeta, key=zeta.get)
    assert top["zeta"] == pytest.approx(zeta[top["metric_id"]], abs=1e-9)
    assert len({o["category"] for o in res.analysis["overview"]}) >= 2      # across categories
    assert {p.metric_id for p in res.subgraph.primaries} == {o["metric_id"] for o in res.analysis["overview"]}


def test_overview_lines_say_which_way_the_period_lies(wh, values):
    """A user review: "most unusual" gave no direction (zeta is unsigned). Each line now says whether
    the period's average is above or below the level of the days before it, in baseline SDs."""
    res = answer_question("How am I doing overall?", SUBJECT, offline=True)
    top = res.analysis["overview"][0]["metric_id"]
    start, t = res.parsed.resolved_period.start, res.parsed.reference_day
    v = _series(values, SUBJECT, top, end=t)
    before, window = v[v.index < start], v[v.index >= start]
    dev = (window.mean() - before.mean()) / before.std(ddof=1)
    assert abs(dev) >= 0.5                                  # the top metric is clearly off its level
    word = "above" if dev > 0 else "below"
    assert f"the period's average is {word} your usual level ({dev:+.1f} SD)" in res.answer.text


def test_an_overview_of_a_sparse_week_says_why_and_what_to_ask(wh, values):
    """Found by a user review: par_3's last week has data on 2 of its 7 days, which is below the
    window-coverage rule, and the error claimed "no numeric data with variation"."""
    from wag_cli.errors import UsageError

    subject = "ifh_affect:par_3"
    mine = values[values.subject_id == subject]
    last = mine.day.max()
    days = mine[(mine.day > last - timedelta(days=7)) & (mine.day <= last)].day.nunique()
    assert days == 2
    with pytest.raises(UsageError) as err:
        answer_question("how am i doing", subject, offline=True)
    assert f"data on only {days} of the 7 days" in str(err.value)
    assert "How am I doing this month?" in str(err.value)
    res = answer_question("am I ok?", "pmdata:p16", offline=True)     # a yes/no check is an overview too
    assert res.parsed.intent == "overview" and res.analysis["overview"]


def test_a_related_score_states_its_instrument(wh, built_db):
    """A user review: a related "Mental stress: 25" had no scale (LifeSnaps: 101 - the Fitbit stress
    management score). A neighbour measured as a score now carries its dataset's measurement note."""
    subject = "lifesnaps:621e337667b776a240ce78ab"
    res = answer_question("What was my HRV on July 15, 2021?", subject, offline=True)
    assert "mental_stress" in {n.metric_id for n in res.subgraph.neighbours}
    con = duckdb.connect(str(built_db), read_only=True)
    try:
        (note,) = con.execute("select measurement from metric_sources where dataset = 'lifesnaps' "
                              "and metric_id = 'mental_stress'").fetchone()
    finally:
        con.close()
    assert "101" in note
    block = res.answer.text.split("* Mental stress", 1)[1].split("\n* ", 1)[0]
    # the person-facing note (issue 27): the instrument and its direction, not the analyst's "101 - x"
    assert "How it is measured here: from Fitbit's stress management score, turned around" in block
    assert "101" not in block


def test_sleep_answer_leads_with_actual_sleep(wh):
    text = answer_question("How did I sleep this week?", SUBJECT, offline=True).answer.text
    assert text.index("Actual sleep (time asleep)") < text.index("Time in bed (total sleep duration)")


def test_a_sleep_day_without_a_record_still_leads_with_time_asleep(wh, values):
    """A user review: on a day with no sleep record the answer led with time in bed labelled "Total
    sleep duration" (9.2 h usual) and moved time asleep to the related metrics."""
    subject, day = "ifh_affect:par_3", date(2020, 5, 10)
    mine = values[(values.subject_id == subject) & values.metric_id.isin(["asleep_duration", "total_sleep_duration"])]
    assert day not in set(mine.day) and (mine.day < day).any()
    text = answer_question("How many hours did I sleep on May 10, 2020?", subject, offline=True).answer.text
    assert text.index("Actual sleep (time asleep)") < text.index("Time in bed (total sleep duration)")
    assert "* Total sleep duration" not in text


def test_a_month_of_mood_labels_is_counted(wh, built_db):
    """A user review: 27 LifeSnaps mood check-ins were answered with the last 5 label strings only.
    The answer now counts the days each label was reported, recomputed here from metric_values."""
    subject = "lifesnaps:621e2f9167b776a240011ccb"
    res = answer_question("How has my mood been over the last month?", subject, offline=True)
    per = res.parsed.resolved_period
    con = duckdb.connect(str(built_db), read_only=True)
    try:
        texts = [r[0] for r in con.execute(
            "select value_text from metric_values where subject_id = ? and metric_id = 'mood' "
            "and day between ? and ? and value_text is not null", [subject, per.start, per.end]).fetchall()]
    finally:
        con.close()
    assert len(texts) > 5
    counts = {}
    for t in texts:
        for lab in {x.strip() for x in t.split(",")}:
            counts[lab] = counts.get(lab, 0) + 1
    top = sorted(counts, key=lambda k: (-counts[k], k))[0]
    assert f"Labels over the {len(texts)} entries: {top} on {counts[top]} days" in " ".join(res.answer.text.split())


def test_guidance_follows_the_subjects_instrument(wh):
    lifesnaps = answer_question("How stressed have I been this month?", "lifesnaps:621e346f67b776a24081744f",
                                offline=True).answer.text
    assert "PMSys" not in lifesnaps and "PSS-4" not in lifesnaps and "Fitbit" in lifesnaps
    pmdata = answer_question("How stressed have I been this month?", SUBJECT, offline=True).answer.text
    assert "PMSys 1-5" in pmdata and "PSS-4" not in pmdata


def test_json_is_backward_compatible_and_carries_the_analysis(wh):
    out = answer_question("How do my steps this week compare to last week?", SUBJECT, offline=True).to_json()
    assert {"question", "subject_id", "method", "parse", "subgraph", "answer", "answer_source",
            "answer_note"} <= set(out)
    assert out["analysis"]["intent"] == "comparison"
    assert out["parse"]["comparison"]["b"]["end"] == "2020-03-24"
    json.dumps(out)


def test_model_gets_the_same_analysis_and_filtered_guidance(wh):
    from wag_cli.answer.text import DISCLAIMER
    from wag_cli.answer.model import model_answer

    class Recorder:
        chat_model = "recorder"

        def chat_text(self, system, instruction, data, data_format="json"):
            self.data, self.data_format = data, data_format
            return "ok"

    res = answer_question("How stressed have I been this month?", "lifesnaps:621e346f67b776a24081744f", offline=True)
    rec = Recorder()
    ans = model_answer(res.question, res.subgraph, rec, res.analysis)
    assert ans.text.startswith("ok") and ans.text.endswith(DISCLAIMER) and ans.source == "model:recorder"
    # the compact text block (issue 11) carries the same analysis and the filtered guidance
    assert rec.data_format == "text" and f"- intent: {res.analysis['intent']}" in rec.data.splitlines()
    assert f"period: {res.analysis['period']['start']} to {res.analysis['period']['end']}" in rec.data
    (line,) = [ln for ln in rec.data.splitlines() if ln.startswith("mental_stress: ") and "Range" in ln]
    assert "PMSys" not in line.split("Range: ", 1)[1]     # the guidance, not the description


# --------------------------------------------------------------------------- paraphrases

PARAPHRASES = [
    ("How was my sleep?", "How did I sleep?"),
    ("How was my sleep this week?", "How did I sleep over the past week?"),
    ("Is my resting heart rate trending down?", "Has my resting heart rate been going down?"),
    ("Do I sleep better on days when I walk more?", "Is my sleep better on days I walk more?"),
    ("How many steps did I take this week?", "What was my step count this week?"),
    ("What affects my deep sleep the most?", "What influences my deep sleep most?"),
    ("How does this week's activity compare to last week?", "Was my activity higher this week than last week?"),
    ("Do I sleep more on weekends than on weekdays?", "How does my sleep on weekends compare with weekdays?"),
    ("Is my stress level unusual this week?", "Has my stress been abnormal this week?"),
    ("What can I do to improve my sleep?", "How can I sleep better?"),
    ("What is HRV?", "What does HRV mean?"),
    ("Is there a link between my steps and my mood?", "Are my steps and my mood related?"),
    ("How am I doing overall?", "How have I been doing lately?"),
    ("Does walking more help me sleep better?", "Does my step count affect my sleep?"),
]


@pytest.mark.parametrize("a, b", PARAPHRASES, ids=[p[0][:40] for p in PARAPHRASES])
def test_paraphrases_get_one_category(a, b):
    pa, pb = parse_offline(a, AS_OF), parse_offline(b, AS_OF)
    assert (pa.category, pa.openness, pa.intent) == (pb.category, pb.openness, pb.intent)


def test_paraphrases_get_the_same_number_of_neighbours(wh):
    a = answer_question("How was my sleep?", SUBJECT, offline=True)
    b = answer_question("How did I sleep?", SUBJECT, offline=True)
    assert a.parsed.category == b.parsed.category
    assert len(a.subgraph.neighbours) == len(b.subgraph.neighbours) > 0


def test_relationship_over_a_named_period_is_that_periods_correlation(wh, values):
    """'over the past month': the pair's correlation on the period's paired days (scipy), beside the
    correlation over every day up to t."""
    res = answer_question("How strongly are my steps and time asleep related over the past 30 days?", SUBJECT,
                          as_of=AS_OF, offline=True)
    rel = {(r["x"], r["y"]): r for r in res.analysis["relationships"]}[("steps_taken", "asleep_duration")]
    start = AS_OF - timedelta(days=29)
    x, y = _paired(values[values.day >= start], SUBJECT, "steps_taken", "asleep_duration", AS_OF)
    assert len(x) >= 10
    assert rel["period"]["n"] == len(x)
    assert rel["period"]["rho"] == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-9)
    assert f"{rel['period']['rho']:+.2f} over {len(x)} days" in res.answer.text
    ax, _ay = _paired(values, SUBJECT, "steps_taken", "asleep_duration", AS_OF)
    assert rel["individual"]["n"] == len(ax) > len(x)


def test_text_metric_with_earlier_entries_is_not_no_data(wh, built_db):
    """User review: LifeSnaps mood (text labels) before the window was reported as never recorded;
    the answer names the last entry's day instead, and a window with entries lists them."""
    subject = "lifesnaps:621e337667b776a240ce78ab"
    con = duckdb.connect(str(built_db), read_only=True)
    try:
        days = [r[0] for r in con.execute("select day from metric_values where subject_id = ? and metric_id = 'mood' "
                                          "and value_text is not null order by day", [subject]).fetchall()]
    finally:
        con.close()
    assert days, "the excerpt has mood entries"
    t = days[-1] + timedelta(days=14)
    res = answer_question("How was my mood this week?", subject, as_of=t, offline=True)
    assert "no mood data recorded" not in res.answer.text
    assert f"the last entry is from {days[-1].isoformat()}" in res.answer.text
    res = answer_question("How was my mood this week?", subject, as_of=days[-1], offline=True)
    in_week = [d for d in days if d > days[-1] - timedelta(days=7)]
    assert f"{len(in_week)} mood entr" in res.answer.text


def test_hours_as_asked_but_under_an_hour_in_minutes():
    """A user review: wake after sleep onset read "0.3 h" in an hours answer. A metric typically under
    an hour keeps minutes for all its numbers; 90 minutes = 1.5 h."""
    from wag_cli.answer.wording import display_unit_for, fmt

    assert fmt(90, "minutes", "hours") == "1.5 h"
    assert display_unit_for("hours", "minutes", 20.7) is None and display_unit_for("hours", "minutes", 88.8) == "hours"
    assert display_unit_for("hours", "bpm", 20.0) == "hours" and display_unit_for(None, "minutes", 20.7) is None
    assert fmt(20.7, "minutes", display_unit_for("hours", "minutes", 20.7)) == "20.7 minutes"


def test_a_question_about_a_month_outside_the_data_names_that_month(wh):
    """A user review: the error named the month's last day (2019-08-31) instead of the period."""
    from wag_cli.errors import UsageError

    with pytest.raises(UsageError, match=r"asks about 2019-08-01 to 2019-08-31 \(31 days\), outside"):
        answer_question("How was my sleep quality in August 2019?", "pmdata:p01", offline=True)


def test_a_daily_amount_has_its_period_total(wh, values):
    """A user review: "How many hours of deep sleep between D1 and D2" can mean a total; the answer
    gave only the average. A "how many" question about a daily amount now leads with the total."""
    res = answer_question("How many hours of deep sleep did I get between 2020-01-10 and 2020-01-20?",
                          SUBJECT, offline=True)
    s = _series(values, SUBJECT, "deep_sleep_duration", date(2020, 1, 10), date(2020, 1, 20))
    assert len(s) > 5
    # "how many hours": the total leads, the average per day follows
    assert f"total {s.sum() / 60:.1f} h over {len(s)} of 11 days with data (average {s.mean() / 60:.1f} h per day," \
        in " ".join(res.answer.text.split())
    # without "how many" the line is the average, with no total
    other = answer_question("What was my deep sleep between 2020-01-10 and 2020-01-20?", SUBJECT, offline=True)
    (line,) = [ln for ln in other.answer.text.splitlines() if ln.strip().startswith("Deep sleep duration: average")]
    assert "total" not in line and f"over {len(s)} of 11 days with data" in line
    rhr = answer_question("What was my resting heart rate this week?", SUBJECT, offline=True).answer.text
    (line,) = [ln for ln in rhr.splitlines() if ln.strip().startswith("Resting heart rate: average")]
    assert "per day" not in line and "total" not in line          # a rate does not add up over days


@pytest.mark.parametrize("dev, words", [
    (0.1, "about your usual level"),
    (0.3, "slightly above your usual level (+0.3 SD)"),
    (-0.3, "slightly below your usual level (-0.3 SD)"),
    (0.8, "above your usual level (+0.8 SD)"),
])
def test_usual_level_words_use_the_comparison_cut_offs(dev, words):
    """A user review: a before/after answer said "slightly higher" (d = 0.29) and, two lines later,
    "about your usual level" (the old 0.5 SD band). Both now cut at 0.2 and 0.5 SD."""
    from wag_cli.answer.text import compare_to_usual
    from wag_cli.retrieve import Node, NodeData

    data = NodeData(n_history_days=40, usual_mean=10.0, usual_sd=2.0, baseline_mean=10.0, baseline_sd=2.0,
                    n_baseline_days=30, n_window_days=7, window_mean=10.0 + 2.0 * dev, baseline_dev_sd=dev)
    node = Node(metric_id="m", name="M", unit="bpm", category="Physiological", data_kind="numeric",
                role="primary", primary_node="m", rank=0, reason="", data=data)
    assert compare_to_usual(node) == words


def test_clock_times_name_the_day_when_it_is_not_the_wake_up_day():
    """A user review: a bedtime of -528 minutes (15:12 the day before) and one of +872 (14:32) read
    "lowest 15:11 ... highest 14:32" as if on one day."""
    from wag_cli.answer.wording import fmt

    u = "minutes from local midnight of the wake-up day"
    assert fmt(-528, u) == "15:12 (previous day)" and fmt(872, u) == "14:32"
    assert fmt(-30, u) == "23:30 (previous day)" and fmt(1500, u) == "01:00 (next day)" and fmt(0, u) == "00:00"
