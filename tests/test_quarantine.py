"""Nothing dropped silently (issue 9 item 1): raw records staging cannot use land in raw_rejected with
a reason; known alternative spellings are read, not rejected; `wag build` prints the count per file
and reason.

Inputs are written by the test in each file's native shape: real PMData p01 files copied from
../shared/data with records appended or altered, and a GLOBEM ema.csv written from scratch.
"""

from __future__ import annotations

import copy
import json
import shutil
from datetime import date, timedelta
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from conftest import run_dbt
from wag_cli.cli import app

MODELS = ["stg_pmdata__sleep", "stg_pmdata__resting_heart_rate", "+int_pmdata__wellness_deduplicated", "stg_globem__ema",
          "raw_rejected"]


def _write_inputs(shared: Path, data: Path) -> dict:
    """Copy p01's files and add bad and alternative-spelling records; returns what was added."""
    src = shared / "pmdata" / "p01"
    dst = data / "pmdata" / "p01"
    (dst / "fitbit").mkdir(parents=True)
    (dst / "pmsys").mkdir(parents=True)
    logs = json.loads((src / "fitbit" / "sleep.json").read_text())
    template = next(x for x in logs if x.get("mainSleep") is True and x.get("type") == "stages")

    def log(log_id: int, **changes):
        """The template log moved to dateOfSleep (23:30 the evening before to 07:00), hypnogram dropped."""
        x = copy.deepcopy(template)
        x["logId"] = log_id
        x["levels"] = {"summary": x["levels"]["summary"]}
        day = changes.get("dateOfSleep") or "2020-04-03"
        before = (date.fromisoformat(day) - timedelta(days=1)).isoformat()
        x.update(startTime=f"{before} 23:30:00", endTime=f"{day}T07:00:00.000")
        x.update(changes)
        return x

    # Fitbit Web-API spelling: isMainSleep instead of mainSleep, on a day after the last real one
    web_api = log(9000000001, dateOfSleep="2020-04-02", startTime="2020-04-01T23:10:00.000",
                  endTime="2020-04-02T07:00:00.000Z")
    web_api["isMainSleep"] = web_api.pop("mainSleep")
    added = [
        web_api,
        log(9000000002, dateOfSleep="", endTime="not a time"),                 # no day at all
        log(9000000003, dateOfSleep=None, endTime=None),                       # null date
        log(9000000004, dateOfSleep="2020-04-04", minutesAsleep="lots"),       # value that does not cast
        log(9000000005, dateOfSleep="2020-04-05", startTime="04/04/2020 23:00"),   # foreign timestamp format
        log(9000000006, dateOfSleep="2020-04-06", mainSleep="yes"),            # unreadable flag
    ]
    no_flag = log(9000000007, dateOfSleep="2020-04-07")
    del no_flag["mainSleep"]
    added.append(no_flag)
    (dst / "fitbit" / "sleep.json").write_text(json.dumps(logs + added))

    rhr = json.loads((src / "fitbit" / "resting_heart_rate.json").read_text())
    rhr += [{"dateTime": "2020-04-01 00:00:00", "value": {"date": "04/01/20", "value": "n/a", "error": 1}},
            {"dateTime": "", "value": {"date": None, "value": 55.0, "error": 1}},
            {"dateTime": "2020-04-02T00:00:00.000", "value": {"date": "04/02/20", "value": 57.5, "error": 1}}]
    (dst / "fitbit" / "resting_heart_rate.json").write_text(json.dumps(rhr))

    lines = (src / "pmsys" / "wellness.csv").read_text().splitlines()
    lines += ["01.04.2020 08:00,3,3,5,6,3,2,[],3",            # day-first dotted: not an ISO timestamp
              "2020-04-02T08:00:00.000Z,x,3,5,6,3,2,[],3"]   # fatigue does not cast
    (dst / "pmsys" / "wellness.csv").write_text("\n".join(lines) + "\n")

    ema = data / "globem" / "INS-W_2" / "SurveyData"
    ema.mkdir(parents=True)
    (ema / "ema.csv").write_text(
        "pid,date,phq4_EMA,phq4_anxiety_EMA,phq4_depression_EMA,pss4_EMA,positive_affect_EMA,negative_affect_EMA\n"
        "INS-W_300,2019-04-03,3.0,1.0,2.0,,10.0,8.0\n"
        "INS-W_300,04/10/2019,4.0,,,,,\n"
        "INS-W_300,2019-04-17,,,,high,,\n"
        "INS-W_300,,,,,,,\n")
    return {"n_sleep": len(logs)}


@pytest.fixture(scope="module")
def quarantined(shared_data, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("quarantine")
    data = tmp / "data"
    info = _write_inputs(shared_data, data)
    db = tmp / "wag.duckdb"
    res = run_dbt(["build", "--select", *MODELS], db=db, data_dir=data, target=tmp / "target")
    assert res.success, res.result
    con = duckdb.connect(str(db), read_only=True)
    yield con, info
    con.close()


def _reasons(con, file_end: str) -> dict[str, list[str]]:
    rows = con.execute("select locator, reason from raw_rejected where file like '%' || ? order by locator, reason",
                       [file_end]).fetchall()
    out: dict[str, list[str]] = {}
    for loc, reason in rows:
        out.setdefault(loc, []).append(reason)
    return out


def test_sleep_rejections_and_alternative_spelling(quarantined):
    con, info = quarantined
    n = info["n_sleep"]
    got = _reasons(con, "pmdata/p01/fitbit/sleep.json")
    assert got == {
        f"element {n + 2} (logId 9000000002)": ["endTime is not a timestamp (YYYY-MM-DD[ T]HH:MM:SS)",
                                                 "no day: neither dateOfSleep nor endTime is a date (YYYY-MM-DD[ HH:MM:SS])"],
        f"element {n + 3} (logId 9000000003)": ["no day: neither dateOfSleep nor endTime is a date (YYYY-MM-DD[ HH:MM:SS])"],
        f"element {n + 4} (logId 9000000004)": ["minutesAsleep is not a number"],
        f"element {n + 5} (logId 9000000005)": ["startTime is not a timestamp (YYYY-MM-DD[ T]HH:MM:SS)"],
        f"element {n + 6} (logId 9000000006)": ["main-sleep flag is not true/false"],
        f"element {n + 7} (logId 9000000007)": ["no main-sleep flag (mainSleep or isMainSleep)"],
    }
    bad = con.execute("select bad_value, raw_text from raw_rejected where locator like '%9000000004%'").fetchone()
    assert bad[0] == "lots" and '"logId":9000000004' in bad[1].replace(" ", "")
    # the isMainSleep log is read like any main sleep, its 'T…Z' end time included
    rows = dict(con.execute("select raw_field, value from stg_pmdata__sleep where day = date '2020-04-02'").fetchall())
    assert rows["sleep.startTime"] == -50.0 and rows["sleep.endTime"] == 420.0
    assert "sleep.minutesAsleep" in rows
    # the log with a bad minutesAsleep keeps its other fields; the bad one gives no row
    fields = {r[0] for r in con.execute("select raw_field from stg_pmdata__sleep where day = date '2020-04-04'").fetchall()}
    assert "sleep.timeInBed" in fields and "sleep.minutesAsleep" not in fields


def test_other_files(quarantined):
    con, _ = quarantined
    rhr = _reasons(con, "resting_heart_rate.json")
    assert sorted(sum(rhr.values(), [])) == ["empty dateTime", "value.value is not a number"]
    assert con.execute("select value from stg_pmdata__resting_heart_rate where day = date '2020-04-02'").fetchone() == (57.5,)
    well = _reasons(con, "wellness.csv")
    assert list(well.values()) == [["effective_time_frame is not a timestamp with zone (YYYY-MM-DDTHH:MM:SSZ)"],
                                   ["fatigue is not a number"]]
    n_lines = len((Path(con.execute("select any_value(full_path) from raw_rejected where file like '%wellness.csv'")
                        .fetchone()[0])).read_text().splitlines())
    assert set(well) == {f"line {n_lines - 1}", f"line {n_lines}"}
    ema = _reasons(con, "ema.csv")
    assert ema == {"line 3 (pid INS-W_300, phq4_EMA)": ["date is not a date (YYYY-MM-DD)"],
                   "line 4 (pid INS-W_300, pss4_EMA)": ["survey answer is not a number"]}
    # the good row is staged; the empty row is missing data, not a rejection
    assert con.execute("select count(*) from stg_globem__ema").fetchone()[0] == 5


def test_wag_build_prints_counts_per_file_and_reason(shared_data, tmp_path):
    data = tmp_path / "data"
    _write_inputs(shared_data, data)
    shutil.rmtree(data / "globem")
    res = CliRunner().invoke(app, ["build"], env={"WAG_DB": str(tmp_path / "w.duckdb"), "WAG_DATA_DIR": str(data),
                                                  "DO_NOT_TRACK": "1", "COLUMNS": "250"})
    assert res.exit_code == 0, res.output
    assert "11 rejections quarantined" in res.stdout
    line = next(ln for ln in res.stdout.splitlines() if "minutesAsleep is not a number" in ln)
    assert "pmdata/p01/fitbit/sleep.json" in line and " 1 " in line
    line = next(ln for ln in res.stdout.splitlines() if "no day: neither" in ln)
    assert " 2 " in line


def test_sleep_score_csv(shared_data, tmp_path):
    src = shared_data / "pmdata" / "p01" / "fitbit" / "sleep_score.csv"
    dst = tmp_path / "data" / "pmdata" / "p01" / "fitbit" / "sleep_score.csv"
    dst.parent.mkdir(parents=True)
    lines = src.read_text().splitlines()
    n = len(lines)
    lines += ["2020-04-02 07:00:00,9000000001,81,20,22,39,60,50,0.05",     # space instead of 'T', no 'Z': read
              "02/04/2020 07:00,9000000002,80,20,22,38,60,50,0.05",       # not ISO: rejected
              "2020-04-04T07:00:00Z,9000000003,good,20,22,38,60,50,0.05"]  # score not a number: rejected
    dst.write_text("\n".join(lines) + "\n")
    db = tmp_path / "wag.duckdb"
    res = run_dbt(["build", "--select", "+int_pmdata__sleep_score_deduplicated", "raw_rejected"], db=db, data_dir=tmp_path / "data",
                  target=tmp_path / "target")
    assert res.success, res.result
    con = duckdb.connect(str(db), read_only=True)
    try:
        rejected = con.execute("select locator, reason, bad_value from raw_rejected order by locator").fetchall()
        read = con.execute("select value from int_pmdata__sleep_score_deduplicated where day = date '2020-04-02'").fetchall()
    finally:
        con.close()
    assert rejected == [
        (f"line {n + 2} (sleep_log_entry_id 9000000002)", "timestamp is not a timestamp (YYYY-MM-DDTHH:MM:SS[Z])",
         "02/04/2020 07:00"),
        (f"line {n + 3} (sleep_log_entry_id 9000000003)", "overall_score is not a number", "good"),
    ]
    assert read == [(81.0,)]


def test_srpe_csv(shared_data, tmp_path):
    src = shared_data / "pmdata" / "p01" / "pmsys" / "srpe.csv"
    dst = tmp_path / "data" / "pmdata" / "p01" / "pmsys" / "srpe.csv"
    dst.parent.mkdir(parents=True)
    lines = src.read_text().splitlines()
    n = len(lines)
    lines += ['2020-04-02T18:00:00.000Z,"[\'running\']",6,45',        # read: 6 x 45 = 270
              'yesterday,"[\'running\']",6,45',                          # time not a timestamp
              '2020-04-03T18:00:00.000Z,"[\'running\']",hard,45']       # RPE not a number
    dst.write_text("\n".join(lines) + "\n")
    db = tmp_path / "wag.duckdb"
    res = run_dbt(["build", "--select", "+int_pmdata__srpe_aggregated", "raw_rejected"], db=db, data_dir=tmp_path / "data",
                  target=tmp_path / "target")
    assert res.success, res.result
    con = duckdb.connect(str(db), read_only=True)
    try:
        rejected = con.execute("select locator, reason, bad_value from raw_rejected order by locator").fetchall()
        read = con.execute("select value from int_pmdata__srpe_aggregated where day = date '2020-04-02'").fetchall()
    finally:
        con.close()
    assert rejected == [(f"line {n + 2}", "end_date_time is not a timestamp with zone (YYYY-MM-DDTHH:MM:SSZ)", "yesterday"),
                        (f"line {n + 3}", "perceived_exertion is not a number", "hard")]
    assert read == [(270.0,)]
