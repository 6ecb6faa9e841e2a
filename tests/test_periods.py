"""Periods of a question (DESIGN.md §8 "Periods"): explicit ranges, calendar phrases and two periods
side by side. Every expected period is worked out by hand from the calendar."""

from __future__ import annotations

from datetime import date

import pytest

from wag_cli.query.periods import WEEKDAY, WEEKEND, Period, comparison_periods, resolve_period, rolling
from wag_cli.query.offline import parse_offline

AS_OF = date(2020, 3, 11)          # a Wednesday


@pytest.mark.parametrize("question, start, end", [
    ("What were my steps between 2020-01-01 and 2020-01-15?", date(2020, 1, 1), date(2020, 1, 15)),
    ("How did I sleep from March 1 to March 9?", date(2020, 3, 1), date(2020, 3, 9)),
    ("Resting heart rate from 3 February 2020 until 10 February 2020", date(2020, 2, 3), date(2020, 2, 10)),
    ("Steps between Dec 20 and Jan 5", date(2019, 12, 20), date(2020, 1, 5)),     # across the new year
    ("How was my stress since Monday?", date(2020, 3, 9), AS_OF),
    ("Steps since last Wednesday", AS_OF, AS_OF),                                  # as-of is a Wednesday
    ("Deep sleep since February 20", date(2020, 2, 20), AS_OF),
    ("How many steps this month?", date(2020, 3, 1), AS_OF),
    ("How was my sleep in March?", date(2020, 3, 1), AS_OF),                       # the month is not over
    ("How was my sleep in February?", date(2020, 2, 1), date(2020, 2, 29)),        # leap year
    ("Mood in May", date(2019, 5, 1), date(2019, 5, 31)),                          # May 2020 lies ahead
    ("Steps on 2020-01-10?", date(2020, 1, 10), date(2020, 1, 10)),
])
def test_resolved_periods(question, start, end):
    p = resolve_period(question, AS_OF)
    assert (p.start, p.end) == (start, end)
    parsed = parse_offline(question, AS_OF)
    # a period is (start, end): reference day = end, window = end - start + 1 days
    assert parsed.reference_day == end
    assert parsed.window_days == (end - start).days + 1
    assert parsed.ref_offset == (end - AS_OF).days
    out = parsed.to_json()
    assert (out["period_start"], out["period_end"]) == (start.isoformat(), end.isoformat())


@pytest.mark.parametrize("question, start", [
    ("steps this week", date(2020, 3, 5)), ("steps last week", date(2020, 3, 5)),
    ("steps past month", date(2020, 2, 11)), ("steps over the past 14 days", date(2020, 2, 27)),
])
def test_rolling_phrases_keep_the_labelled_conventions(question, start):
    p = parse_offline(question, AS_OF)
    assert (p.resolved_period.start, p.reference_day) == (start, AS_OF)
    assert p.window_days == (AS_OF - start).days + 1


def test_range_that_ends_before_it_starts_is_an_error():
    with pytest.raises(ValueError, match="ends before it starts"):
        parse_offline("steps between 2020-03-09 and 2020-03-02", AS_OF)


def test_this_week_vs_last_week():
    p = parse_offline("How do my steps this week compare to last week?", AS_OF)
    kind, a, b = p.comparison
    assert kind == "previous"
    assert (a.start, a.end) == (date(2020, 3, 5), date(2020, 3, 11))
    assert (b.start, b.end) == (date(2020, 2, 27), date(2020, 3, 4))
    assert p.category == "Comparative Insight" and p.intent == "comparison"
    assert (p.reference_day, p.window_days) == (AS_OF, 7)


def test_this_month_vs_last_month_are_calendar_months():
    kind, a, b = parse_offline("Compare my sleep this month vs last month", AS_OF).comparison
    assert (a.start, a.end, b.start, b.end) == (date(2020, 3, 1), AS_OF, date(2020, 2, 1), date(2020, 2, 29))


def test_compared_with_previous_month_alone():
    kind, a, b = parse_offline("How did my sleep efficiency compare with the previous month?", AS_OF).comparison
    assert (a.start, a.end) == (date(2020, 2, 11), AS_OF)                   # the 30 days ending as-of
    assert (b.start, b.end) == (date(2020, 1, 12), date(2020, 2, 10))       # the 30 days before


def test_weekends_vs_weekdays_cover_all_history_without_a_period():
    p = parse_offline("Do I sleep more on weekends than on weekdays?", AS_OF)
    kind, a, b = p.comparison
    assert kind == "weekday_split" and a.iso_days == WEEKEND and b.iso_days == WEEKDAY
    assert a.start is None and a.end == AS_OF and p.window_days is None
    kind, a, b = parse_offline("Steps on weekdays vs weekends over the past 4 weeks", AS_OF).comparison
    assert a.iso_days == WEEKDAY and (a.start, a.end) == (date(2020, 2, 13), AS_OF)


def test_before_and_after_a_date():
    p = parse_offline("Was my resting heart rate different before and after 2020-02-01?", AS_OF)
    kind, a, b = p.comparison
    assert kind == "before_after"
    assert (a.start, a.end) == (None, date(2020, 1, 31)) and (b.start, b.end) == (date(2020, 2, 1), AS_OF)
    assert (p.resolved_period.start, p.reference_day) == (date(2020, 2, 1), AS_OF)


def test_no_comparison_for_a_single_period():
    for q in ("What happened to my sleep last week?", "Is my heart rate higher than usual this week?",
              "How many steps this week?"):
        p = parse_offline(q, AS_OF)
        assert comparison_periods(q, p.resolved_period, AS_OF) is None and p.comparison is None, q


def test_period_describe_and_json():
    p = Period(date(2020, 1, 1), date(2020, 1, 15), "between")
    assert p.window_days == 15 and p.describe() == "2020-01-01 to 2020-01-15 (15 days)"
    assert rolling(AS_OF, None).window_days is None and rolling(AS_OF, None).to_json()["days"] == "all"
    assert rolling(AS_OF, 1).describe() == AS_OF.isoformat()


def test_units_follow_the_question():
    assert parse_offline("How many hours did I sleep this week?", AS_OF).display_unit == "hours"
    assert parse_offline("How long did I sleep in the past 24 hours?", AS_OF).display_unit is None


@pytest.mark.parametrize("question, a, b", [
    ("Did my resting heart rate go up in March compared with February?", (date(2020, 3, 1), date(2020, 3, 31)),
     (date(2020, 2, 1), date(2020, 2, 29))),
    ("Was my heart rate higher in January than in December?", (date(2020, 1, 1), date(2020, 1, 31)),
     (date(2019, 12, 1), date(2019, 12, 31))),
])
def test_two_named_months_are_compared(question, a, b):
    """Two calendar months side by side, each the latest one on or before the reference day (§8)."""
    kind, pa, pb = comparison_periods(question, resolve_period(question, date(2020, 3, 31)), date(2020, 3, 31))
    assert kind == "months"
    assert (pa.start, pa.end) == a and (pb.start, pb.end) == b


def test_a_named_weekday_and_the_week_before_last():
    """User review: "on Sunday" was read as the 7-day default window, "the week before last" as this week."""
    t = date(2022, 1, 21)                                   # a Friday
    p = parse_offline("How many steps did I take on Sunday?", t)
    assert (p.resolved_period.start, p.resolved_period.end) == (date(2022, 1, 16), date(2022, 1, 16))
    p = parse_offline("How did I sleep last Friday?", t)     # "last <weekday>" on that weekday: a week back
    assert (p.resolved_period.start, p.resolved_period.end) == (date(2022, 1, 14), date(2022, 1, 14))
    p = parse_offline("What was my resting heart rate the week before last?", t)
    assert (p.resolved_period.start, p.resolved_period.end) == (date(2022, 1, 8), date(2022, 1, 14))
    p = parse_offline("Do I sleep more on Sundays?", t)      # a habit, not one day
    assert p.resolved_period.start != p.resolved_period.end


@pytest.mark.parametrize("question, start, end", [
    # the 7 days ending the day before 2020-01-20
    ("How did I sleep the week before 2020-01-20?", date(2020, 1, 13), date(2020, 1, 19)),
    ("Steps in the 3 days before March 5", date(2020, 3, 2), date(2020, 3, 4)),
    ("Resting heart rate in the two weeks prior to February 10", date(2020, 1, 27), date(2020, 2, 9)),
    # 30 days ending 2020-02-14: 2020-01-16 .. 2020-02-14 (January has 31 days)
    ("How was my heart rate the month before 2020-02-15?", date(2020, 1, 16), date(2020, 2, 14)),
    ("How did I sleep in the week after 2020-01-20?", date(2020, 1, 21), date(2020, 1, 27)),
    ("Steps the week following March 8", date(2020, 3, 9), AS_OF),                  # cut at as-of (03-11)
])
def test_a_span_before_or_after_a_date(question, start, end):
    """Found by a user review: "the week before 2020-01-20" was read as the 7 days up to as-of."""
    p = resolve_period(question, AS_OF)
    assert (p.start, p.end) == (start, end)
    assert parse_offline(question, AS_OF).reference_day == end


def test_a_span_after_the_reference_day_is_an_error():
    with pytest.raises(ValueError, match="starts after the reference day"):
        resolve_period("Steps in the week after 2020-03-11", AS_OF)


def test_labels_keep_the_capitals_of_month_and_weekday_names():
    """The answer states the period by its phrase: "(in March)", not the lowercased "(in march)"."""
    assert resolve_period("How was my sleep in march?", AS_OF).label == "in March"
    assert resolve_period("Steps on sunday", AS_OF).label == "on Sunday"
    assert resolve_period("Steps the week before March 5th", AS_OF).label == "week before March 5th"
    assert resolve_period("How many steps this month?", AS_OF).label == "this month"


@pytest.mark.parametrize("question, start, end, corrections", [
    # found by a user review: "febuary" was not read, and the answer covered the last 7 days
    ("how did i slepe in febuary", date(2020, 2, 1), date(2020, 2, 29), [("febuary", "february")]),
    ("How was my sleep lst wek?", date(2020, 3, 5), AS_OF, [("lst", "last"), ("wek", "week")]),
    ("Steps yesturday", date(2020, 3, 10), date(2020, 3, 10), [("yesturday", "yesterday")]),
    ("Steps on wensday", date(2020, 3, 11), AS_OF, [("wensday", "wednesday")]),   # as-of is a Wednesday
])
def test_misspelled_period_words_are_read_and_reported(question, start, end, corrections):
    p = parse_offline(question, AS_OF)
    assert (p.resolved_period.start, p.resolved_period.end) == (start, end)
    assert p.corrections == corrections
    assert p.to_json()["corrections"] == [list(c) for c in corrections]
    assert p.question == question                         # the question itself is kept as asked


def test_real_words_and_metric_words_are_not_corrected():
    for q in ("Will I sleep better later?", "How many insights from my lights-out times?",
              "Is my weekly mood better than my monthly one?", "How was my sleep efficiency?",
              "Do I sleep more on Sundays?", "What is my readiness score?"):
        assert parse_offline(q, AS_OF).corrections == [], q


def test_no_question_of_the_labelled_set_is_corrected():
    import json

    from conftest import SHARED_EVAL

    path = SHARED_EVAL / "dev_questions.jsonl"
    if not path.is_file():
        pytest.skip(f"labelled questions not found at {path}")
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    assert len(rows) >= 30
    assert [r["q"] for r in rows if parse_offline(r["q"], AS_OF).corrections] == []
