"""Nothing dropped silently, for the rest of the native files staging reads (issue 9 item 1):
PMData per-minute steps/distance, daily activity minutes, heart-rate zones, exercise, googledocs
reporting, pmsys injury; LifeSnaps daily table and scored surveys; IFH Affect Oura sleep/activity;
GLOBEM feature files and pre.csv. One test per class, each across those datasets:

* a timestamp or date that does not parse in the file's format   -> raw_rejected with the reason;
* an empty or null date / timestamp                              -> raw_rejected ('empty …');
* a value that does not cast where a number is expected          -> raw_rejected; the record's
  other fields are still staged;
* a known alternative spelling ('T' and '.000' in a timestamp, a bare date, an ISO date in a
  day-first file, a quoted zone number, scientific notation) is read; a legitimately empty cell and
  Oura's literal 'null' are missing values, never rejections.

Inputs are written by the test in each file's native shape: JSON arrays and CSVs written from
scratch for PMData and LifeSnaps panas, and for the wide files (LifeSnaps daily, IFH sleep/activity,
GLOBEM screen and pre) the real header and first row copied from ../shared/data with cells changed.
Expected values follow from the rows written here.
"""

from __future__ import annotations

import csv
import json
import re
from datetime import date
from pathlib import Path

import duckdb
import pytest

from conftest import REPO, run_dbt

MODELS = ["stg_pmdata__steps", "stg_pmdata__distance", "stg_pmdata__activity_minutes", "stg_pmdata__wear_time",
          "stg_pmdata__exercise", "stg_pmdata__reporting", "stg_lifesnaps__daily", "stg_lifesnaps__wear_time",
          "stg_lifesnaps__surveys", "+int_ifh_affect__sleep_unpivoted", "stg_ifh_affect__activity", "stg_globem__screen",
          "stg_globem__ema", "raw_rejected"]
# the staging models that parse the raw cells (a '+model' above is built with its staging parents, which
# do the parsing since issue 25 moved the rules to intermediate)
PARSING = [m for m in MODELS[:-1] if not m.startswith("+")] + [
    "stg_ifh_affect__sleep_nights"]
DAILY = "lifesnaps/rais_anonymized/csv_rais_anonymized/daily_fitbit_sema_df_unprocessed.csv"
SCREEN_COUNT = "f_screen:phone_screen_rapids_countepisodeunlock:allday"
SCREEN_MINUTES = "f_screen:phone_screen_rapids_sumdurationunlock:allday"


def _json(path: Path, rows: list) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(rows))


def _wide_csv(src: Path, dst: Path, rows: list[dict], newline: str) -> None:
    """Write `rows` under the real header of `src`; each row starts from src's first data row."""
    with src.open(newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        first = next(reader)
    dst.parent.mkdir(parents=True, exist_ok=True)
    with dst.open("w", newline="") as f:
        w = csv.writer(f, lineterminator=newline)
        w.writerow(header)
        for changes in rows:
            row = dict(zip(header, first))
            row.update(changes)
            w.writerow([row[h] for h in header])


def _write_inputs(shared: Path, data: Path) -> None:
    fitbit = data / "pmdata" / "p99" / "fitbit"
    _json(fitbit / "steps.json", [
        {"dateTime": "2020-04-01 08:00:00", "value": "100"},
        {"dateTime": "2020-04-01T09:00:00.000", "value": "50"},     # 'T' and '.000': read
        {"dateTime": "01/04/2020 10:00", "value": "30"},             # not ISO: rejected
        {"dateTime": "", "value": "20"},                              # empty: rejected
        {"dateTime": "2020-04-01 11:00:00", "value": "many"},        # not a number: rejected
        {"dateTime": "2020-04-01 12:00:00", "value": ""},            # missing: no row, not rejected
    ])
    _json(fitbit / "distance.json", [
        {"dateTime": "2020-04-01 08:00:00", "value": "1000"},
        {"dateTime": "2020-04-01 08:01:00", "value": "1,5"},         # decimal comma: rejected
    ])
    _json(fitbit / "sedentary_minutes.json", [
        {"dateTime": "2020-04-01 00:00:00", "value": "600"},
        {"dateTime": "2020-04-02", "value": "700"},                  # bare date: read
        {"dateTime": "April 3", "value": "500"},                     # rejected
        {"dateTime": "2020-04-04 00:00:00", "value": "n/a"},         # rejected
    ])
    _json(fitbit / "lightly_active_minutes.json", [{"dateTime": "2020-04-01 00:00:00", "value": "100"}])
    zones = {"BELOW_DEFAULT_ZONE_1": 600.0, "IN_DEFAULT_ZONE_1": "60", "IN_DEFAULT_ZONE_2": 0.0,
             "IN_DEFAULT_ZONE_3": 0.0}                                # "60" quoted: read
    _json(fitbit / "time_in_heart_rate_zones.json", [
        {"dateTime": "2020-04-01 00:00:00", "value": {"valuesInZones": zones}},
        {"dateTime": None, "value": {"valuesInZones": zones}},        # null date: rejected
        {"dateTime": "2020-04-02 00:00:00", "value": {"valuesInZones": {**zones, "IN_DEFAULT_ZONE_1": "lots"}}},
    ])
    bout = {"activityName": "Walk", "activityTypeId": 90013, "averageHeartRate": 94, "calories": 192,
            "duration": 1320000, "activeDuration": 1320000, "logType": "auto_detected"}
    _json(fitbit / "exercise.json", [
        {**bout, "logId": 1, "startTime": "2020-04-02T10:00:00.000"},  # read: Walk (22 min) on 04-02
        {**bout, "logId": 2, "startTime": ""},                          # rejected: empty
        {**bout, "logId": 3, "startTime": "2 April 2020 10:00"},        # rejected: not ISO
        {**bout, "logId": 4, "startTime": "2020-04-03 10:00:00", "duration": "long"},  # listed by name only
    ])
    docs = data / "pmdata" / "p99" / "googledocs"
    docs.mkdir(parents=True)
    (docs / "reporting.csv").write_text(
        "date,timestamp,meals,weight,glasses_of_fluid,alcohol_consumed\n"
        '01/04/2020,01/04/2020 21:00:00,"Breakfast, Dinner",80,6,No\n'
        "2020-04-02,2020-04-02 21:00:00,Lunch,80,5,No\n"        # ISO date in the day-first file: read
        ",03/04/2020 21:00:00,Lunch,80,5,No\n"                  # empty date: rejected
        "04/13/2020,13/04/2020 21:00:00,Lunch,80,5,No\n"        # month-first (no month 13): rejected
        "05/04/2020,yesterday evening,Dinner,80,4,No\n")        # timestamp rejected, the row is read
    (data / "pmdata" / "p99" / "pmsys").mkdir(parents=True)
    (data / "pmdata" / "p99" / "pmsys" / "injury.csv").write_text(
        "effective_time_frame,injuries\n"
        "2020-04-01T10:00:00.000Z,{'left_knee': 'minor'}\n"
        "02.04.2020 10:00,{'left_knee': 'major'}\n")           # not ISO: rejected

    ls = shared / DAILY
    _wide_csv(ls, data / DAILY, [
        {"id": "lsTEST", "date": "2021-09-01"},
        {"id": "lsTEST", "date": "2021-09-02 00:00:00"},           # date with a midnight time: read
        {"id": "lsTEST", "date": ""},                              # empty date: rejected
        {"id": "lsTEST", "date": "09/03/2021"},                    # not ISO: rejected
        {"id": "lsTEST", "date": "2021-09-04", "steps": "abc"},    # rejected; the other fields staged
        {"id": "lsTEST", "date": "2021-09-05", "steps": "", "rmssd": "", "bpm": ""},  # empty = missing
    ], "\r\n")
    surveys = data / "lifesnaps" / "rais_anonymized" / "scored_surveys"
    surveys.mkdir(parents=True)
    (surveys / "panas.csv").write_text(
        ",user_id,type,submitdate,positive_affect_score,negative_affect_score\r\n"
        "0,lsTEST,panas,2021-06-01,30,12\r\n"
        "1,lsTEST,panas,2021-06-08,thirty,12\r\n"                 # rejected; negative score staged
        "2,lsTEST,panas,,30,12\r\n"                               # empty date: rejected
        "3,lsTEST,panas,2021-06-15,,\r\n")                        # empty = missing

    oura = data / "ifh_affect" / "par_9" / "oura"
    _wide_csv(shared / "ifh_affect" / "par_1" / "oura" / "sleep.csv", oura / "sleep.csv", [
        {"date": "2020-04-01"},
        {"date": "2020-04-02", "temperature_delta": "null"},       # Oura's 'null' = missing
        {"date": "03.04.2020"},                                   # not ISO: rejected
        {"date": "2020-04-04", "hr_average": "fast"},             # rejected
    ], "\n")
    _wide_csv(shared / "ifh_affect" / "par_21" / "oura" / "activity.csv", oura / "activity.csv", [
        {"date": "2020-04-01"},
        {"date": ""},                                             # empty date: rejected
    ], "\n")

    screen = next(sorted((shared / "globem").glob("*/FeatureData/screen.csv")).__iter__())
    _wide_csv(screen, data / "globem" / "INS-W_5" / "FeatureData" / "screen.csv", [
        {"pid": "INS-W_900", "date": "2019-04-01", SCREEN_COUNT: "1.2e2", SCREEN_MINUTES: "30.5"},  # read
        {"pid": "INS-W_900", "date": "not a date"},
        {"pid": "INS-W_900", "date": ""},
        {"pid": "INS-W_900", "date": "2019-04-04", SCREEN_COUNT: "many", SCREEN_MINUTES: "10"},
    ], "\n")
    pre = next(sorted((shared / "globem").glob("*/SurveyData/pre.csv")).__iter__())
    _wide_csv(pre, data / "globem" / "INS-W_5" / "SurveyData" / "pre.csv", [
        {"pid": "INS-W_900", "date": "2019-04-01", "BFI10_openness_PRE": "seven"},   # rejected, 4 traits read
        {"pid": "INS-W_901", "date": "April 2019"},                                   # rejected (per item)
    ], "\n")


@pytest.fixture(scope="module")
def built(shared_data, tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("quarantine_sources")
    data = tmp / "data"
    _write_inputs(shared_data, data)
    res = run_dbt(["build", "--select", *MODELS, "--indirect-selection", "cautious"], db=tmp / "wag.duckdb",
                  data_dir=data, target=tmp / "target")
    assert res.success, res.exception or [(r.node.name, r.message) for r in res.result]
    return tmp


@pytest.fixture(scope="module")
def con(built):
    c = duckdb.connect(str(built / "wag.duckdb"), read_only=True)
    yield c
    c.close()


def _rejected(con, reason_like: str) -> set[tuple]:
    return set(con.execute(
        "select file, locator, reason, bad_value from raw_rejected where reason like ? order by all",
        [reason_like]).fetchall())


def _value(con, model: str, subject: str, day: str, field: str):
    rows = con.execute(f"select value from {model} where subject_id = ? and day = ?::date and raw_field = ?",
                       [subject, day, field]).fetchall()
    return rows[0][0] if rows else None


def test_bad_timestamp_or_date_is_quarantined(con):
    got = _rejected(con, "% is not a date %") | _rejected(con, "% is not a timestamp %")
    assert got == {
        ("pmdata/p99/fitbit/steps.json", "element 3 (dateTime 01/04/2020 10:00)",
         "dateTime is not a timestamp (YYYY-MM-DD HH:MM:SS)", "01/04/2020 10:00"),
        ("pmdata/p99/fitbit/sedentary_minutes.json", "element 3 (dateTime April 3)",
         "dateTime is not a date (YYYY-MM-DD[ HH:MM:SS])", "April 3"),
        ("pmdata/p99/fitbit/exercise.json", "element 3 (logId 3)",
         "startTime is not a timestamp (YYYY-MM-DD[ T]HH:MM:SS)", "2 April 2020 10:00"),
        ("pmdata/p99/googledocs/reporting.csv", "line 5", "date is not a date (DD/MM/YYYY)", "04/13/2020"),
        ("pmdata/p99/googledocs/reporting.csv", "line 6", "timestamp is not a timestamp (DD/MM/YYYY HH:MM:SS)",
         "yesterday evening"),
        (DAILY, "line 5 (id lsTEST)", "date is not a date (YYYY-MM-DD)", "09/03/2021"),
        ("ifh_affect/par_9/oura/sleep.csv", "line 4 (date 03.04.2020)", "date is not a date (YYYY-MM-DD)",
         "03.04.2020"),
        ("globem/INS-W_5/FeatureData/screen.csv", "line 3 (pid INS-W_900)", "date is not a date (YYYY-MM-DD)",
         "not a date"),
        ("pmdata/p99/pmsys/injury.csv", "line 3", "effective_time_frame is not a timestamp (YYYY-MM-DDTHH:MM:SSZ)",
         "02.04.2020 10:00"),
    } | {("globem/INS-W_5/SurveyData/pre.csv", f"line 3 (pid INS-W_901, BFI10_{t}_PRE)",
          "date is not a date (YYYY-MM-DD)", "April 2019")
         for t in ["extroversion", "agreeableness", "conscientiousness", "neuroticism", "openness"]}
    # none of these records reaches staging; the reporting row with a bad timestamp is still read
    assert con.execute("select count(*) from stg_lifesnaps__daily where subject_id = 'lifesnaps:lsTEST'"
                       " and day = date '2021-03-09'").fetchone()[0] == 0
    assert con.execute("select count(*) from stg_pmdata__activity_minutes where value = 500").fetchone()[0] == 0
    assert con.execute("select value_text from stg_pmdata__reporting where day = date '2020-04-05'").fetchone() == \
        ("meals: Dinner; weight: 80 kg; fluid: 4 glasses; alcohol: No",)
    assert _value(con, "int_ifh_affect__sleep_unpivoted", "ifh_affect:par_9", "2020-04-03", "sleep.duration") is None
    assert con.execute("select day, value_text from stg_pmdata__reporting where value_text like '%injury%'"
                       ).fetchall() == [(date(2020, 4, 1), "meals: Breakfast, Dinner; weight: 80 kg; fluid: 6 glasses; "
                                                            "alcohol: No; injury: left_knee minor")]
    assert con.execute("select count(*) from stg_globem__ema where subject_id like '%INS-W_901'").fetchone()[0] == 0


def test_empty_date_is_quarantined(con):
    assert _rejected(con, "empty %") == {
        ("pmdata/p99/fitbit/steps.json", "element 4", "empty dateTime", None),
        ("pmdata/p99/fitbit/time_in_heart_rate_zones.json", "element 2", "empty dateTime", None),
        ("pmdata/p99/fitbit/exercise.json", "element 2 (logId 2)", "empty startTime", None),
        ("pmdata/p99/googledocs/reporting.csv", "line 4", "empty date", None),
        (DAILY, "line 4 (id lsTEST)", "empty date", None),
        ("lifesnaps/rais_anonymized/scored_surveys/panas.csv", "line 4 (user_id lsTEST)", "empty submitdate", None),
        ("ifh_affect/par_9/oura/activity.csv", "line 3", "empty date", None),
        ("globem/INS-W_5/FeatureData/screen.csv", "line 4 (pid INS-W_900)", "empty date", None),
    }
    # the raw text says which record it was
    raw = con.execute("select raw_text from raw_rejected where reason = 'empty startTime'").fetchone()[0]
    assert json.loads(raw)["logId"] == 2


def test_uncastable_value_is_quarantined(con):
    assert _rejected(con, "% is not a number") - _rejected(con, "value.valuesInZones %") == {
        ("pmdata/p99/fitbit/steps.json", "element 5 (dateTime 2020-04-01 11:00:00)", "value is not a number", "many"),
        ("pmdata/p99/fitbit/distance.json", "element 2 (dateTime 2020-04-01 08:01:00)", "value is not a number", "1,5"),
        ("pmdata/p99/fitbit/sedentary_minutes.json", "element 4 (dateTime 2020-04-04 00:00:00)",
         "value is not a number", "n/a"),
        ("pmdata/p99/fitbit/exercise.json", "element 4 (logId 4)", "duration is not a number", "long"),
        (DAILY, "line 6 (id lsTEST)", "steps is not a number", "abc"),
        ("lifesnaps/rais_anonymized/scored_surveys/panas.csv", "line 3 (user_id lsTEST)",
         "positive_affect_score is not a number", "thirty"),
        ("ifh_affect/par_9/oura/sleep.csv", "line 5 (date 2020-04-04)", "hr_average is not a number", "fast"),
        ("globem/INS-W_5/FeatureData/screen.csv", "line 5 (pid INS-W_900)", f"{SCREEN_COUNT} is not a number", "many"),
        ("globem/INS-W_5/SurveyData/pre.csv", "line 2 (pid INS-W_900, BFI10_openness_PRE)", "survey answer is not a number",
         "seven"),
    }
    (zone_file, zone_loc, zone_bad), = con.execute(
        "select file, locator, bad_value from raw_rejected where reason like 'value.valuesInZones%'").fetchall()
    assert zone_loc == "element 3 (dateTime 2020-04-02 00:00:00)" and '"lots"' in zone_bad
    # the record's other fields are still staged; the bad one gives no row
    assert _value(con, "stg_pmdata__steps", "pmdata:p99", "2020-04-01", "steps.sum") == 150
    assert _value(con, "stg_pmdata__distance", "pmdata:p99", "2020-04-01", "distance.sum") == 1000
    assert con.execute("select value_text from stg_pmdata__exercise where day = date '2020-04-03'").fetchone() == \
        ("Walk",)
    ls = "lifesnaps:lsTEST"
    assert _value(con, "stg_lifesnaps__daily", ls, "2021-09-04", "daily.steps") is None
    assert _value(con, "stg_lifesnaps__daily", ls, "2021-09-04", "daily.calories") == \
        _value(con, "stg_lifesnaps__daily", ls, "2021-09-01", "daily.calories") is not None
    assert _value(con, "stg_lifesnaps__surveys", ls, "2021-06-08", "panas.positive_affect_score") is None
    assert _value(con, "stg_lifesnaps__surveys", ls, "2021-06-08", "panas.negative_affect_score") == 12
    assert _value(con, "int_ifh_affect__sleep_unpivoted", "ifh_affect:par_9", "2020-04-04", "sleep.hr_average") is None
    assert _value(con, "int_ifh_affect__sleep_unpivoted", "ifh_affect:par_9", "2020-04-04", "sleep.duration") is not None
    g = "globem:INS-W_5/INS-W_900"
    assert _value(con, "stg_globem__screen", g, "2019-04-04", "screen.phone_screen_rapids_countepisodeunlock") is None
    assert _value(con, "stg_globem__screen", g, "2019-04-04", "screen.phone_screen_rapids_sumdurationunlock") == 10
    bfi, = con.execute("select value_text from stg_globem__ema where subject_id = ? and raw_field = 'pre.BFI10'",
                       [g]).fetchone()
    assert bfi.count(",") == 3 and "openness" not in bfi


def test_alternative_spellings_read_and_empty_cells_missing(con):
    # 'T…000' timestamp: 100 + 50 steps; bare date; quoted zone number; ISO date in a day-first file
    assert _value(con, "stg_pmdata__steps", "pmdata:p99", "2020-04-01", "steps.sum") == 150
    assert _value(con, "stg_pmdata__activity_minutes", "pmdata:p99", "2020-04-02",
                  "activity.sedentary_minutes") == 700
    assert con.execute("select wear_minutes from stg_pmdata__wear_time where day = date '2020-04-01'").fetchone() == \
        (660.0,)
    assert con.execute("select value_text from stg_pmdata__exercise where day = date '2020-04-02'").fetchone() == \
        ("Walk (22 min)",)
    assert con.execute("select value_text from stg_pmdata__reporting where day = date '2020-04-02'").fetchone() == \
        ("meals: Lunch; weight: 80 kg; fluid: 5 glasses; alcohol: No",)
    # LifeSnaps date with a midnight time; IFH 'null'; GLOBEM scientific notation
    ls = "lifesnaps:lsTEST"
    assert _value(con, "stg_lifesnaps__daily", ls, "2021-09-02", "daily.calories") is not None
    assert con.execute("select count(*) from stg_lifesnaps__wear_time where subject_id = ?", [ls]).fetchone()[0] == 4
    assert _value(con, "int_ifh_affect__sleep_unpivoted", "ifh_affect:par_9", "2020-04-02", "sleep.temperature_delta") is None
    assert _value(con, "int_ifh_affect__sleep_unpivoted", "ifh_affect:par_9", "2020-04-02", "sleep.duration") is not None
    assert _value(con, "stg_globem__screen", "globem:INS-W_5/INS-W_900", "2019-04-01",
                  "screen.phone_screen_rapids_countepisodeunlock") == 120
    # empty cells are missing values: no row, and no rejection for those records
    assert _value(con, "stg_lifesnaps__daily", ls, "2021-09-05", "daily.steps") is None
    assert _value(con, "stg_lifesnaps__surveys", ls, "2021-06-15", "panas.positive_affect_score") is None
    rejected_at = set(con.execute("select file, split_part(locator, ' (', 1) from raw_rejected").fetchall())
    for read in [("pmdata/p99/fitbit/steps.json", "element 2"), ("pmdata/p99/fitbit/steps.json", "element 6"),
                 ("pmdata/p99/fitbit/sedentary_minutes.json", "element 2"),
                 ("pmdata/p99/fitbit/time_in_heart_rate_zones.json", "element 1"),
                 ("pmdata/p99/fitbit/exercise.json", "element 1"), ("pmdata/p99/googledocs/reporting.csv", "line 3"),
                 (DAILY, "line 3"), (DAILY, "line 7"),
                 ("lifesnaps/rais_anonymized/scored_surveys/panas.csv", "line 5"),
                 ("ifh_affect/par_9/oura/sleep.csv", "line 3"), ("globem/INS-W_5/FeatureData/screen.csv", "line 2")]:
        assert read not in rejected_at, read
    # `wag build`'s table: one line per file and reason, from the same raw_rejected
    summary = con.execute((REPO / "wag_cli" / "sql" / "rejected_summary.sql").read_text()).fetchall()
    assert sum(n for _, _, n, _ in summary) == 25 + 1 + 5 + 1
    assert ("globem/INS-W_5/FeatureData/screen.csv", "empty date", 1, "line 4 (pid INS-W_900)") in summary


# A cell staging parses as a number (compiled wag_parse_number of a column) -> its column name.
PARSED_COLUMN = re.compile(r"""try_cast\(nullif\(trim\(cast\(("[^"]+"|[A-Za-z_][A-Za-z0-9_]*) as (?:varchar|string)\)\), ''\) as double\)""")
# Columns parsed as a number on purpose without a rejection: bmi falls back to text ('<19');
# raw_value is GLOBEM's unpivoted cell, checked under its column's name.
NOT_CHECKED = {"bmi", "raw_value", "value"}


def test_every_numeric_column_staging_parses_is_checked(built):
    """Guard against drift: every column a staging model of these files parses with wag_parse_number
    has a '<column> is not a number' rule in the compiled raw_rejected (so a new column cannot be
    added to staging and dropped silently)."""
    compiled = built / "target" / "compiled" / "wag" / "models" / "staging"
    rejected_sql = (compiled / "raw_rejected.sql").read_text()
    checked = set(re.findall(r"'reason': '(.+?) is not a number'", rejected_sql))
    parsed = {model: {c.strip('"') for c in PARSED_COLUMN.findall(next(compiled.glob(f"*/{model}.sql")).read_text())}
              - NOT_CHECKED for model in PARSING}
    assert {m: sorted(cols - checked) for m, cols in parsed.items() if cols - checked} == {}
    assert len(parsed["stg_lifesnaps__daily"]) >= 30 and len(parsed["stg_ifh_affect__sleep_nights"]) == 17
    assert "daily_temperature_variation" in checked and "temperature_delta" in checked
