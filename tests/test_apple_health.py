"""Apple Health exports (issue 28, DESIGN.md §2 "A person's own export"): miniature exports written
here in Apple's format (never a copy of anyone's export), built with the whole project, day values by hand.

anna  apple_health_export/export.xml with the iOS 16 malformed DTD:
      * 2024-03-01 steps: iPhone 1000 + 500 = 1500, Apple Watch 800 + 600 + 300 = 1700 -> 1700
        (the larger source's sum, never 3200);
      * a watch record at 2024-03-02 00:30 +0200 (22:30 UTC on 03-01) -> 40 steps on 03-02, none on 03-01;
      * 2024-03-03: a 200-step record repeated inside a Correlation -> 200, not 400;
      * the night 03-01 23:00 -> 03-02 06:00 (watch stages; the iPhone's in-bed 22:45-06:15 is another
        source): core 30 + 210 = 240, deep 60 (23:30-00:30, across midnight), REM 90, awake 30, asleep
        390, in bed 420 (23:00-06:00), efficiency 390/420, bedtime -60 / end 360, all on 03-02;
      * 2 HeadphoneAudioExposure records (not mapped: counted), 1 step record whose value is 'abc' (rejected).
bob   export.zip (the member streamed) whose DTD declares an external entity pointing at a file holding
      12345: nothing is read from it; the record using it is rejected (empty value), 700 steps on 03-05.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import duckdb
import pyexpat
import pytest

from conftest import run_dbt
from wag_cli.apple_health import DoctypeStripper, iter_records, ExportReport

W = "Anna’s Apple Watch"
P = "Anna’s iPhone"

# the DTD of an iOS 16 export with its defect: an ATTLIST that is never closed before the next
# declaration (standard parsers stop with "syntax error" inside the DTD)
IOS16_DTD = """<!DOCTYPE HealthData [
<!-- HealthKit Export Version: 13 -->
<!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord)*)>
<!ATTLIST HealthData
  locale CDATA #REQUIRED
>
<!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
<!ATTLIST Record
  type          CDATA #REQUIRED
  unit          CDATA #IMPLIED
  value         CDATA #IMPLIED
  sourceName    CDATA #REQUIRED
  startDate     CDATA #REQUIRED
  endDate       CDATA #REQUIRED
>
<!ATTLIST WorkoutActivity
  uuid          CDATA #REQUIRED
  startDate     CDATA #REQUIRED
  endDate       CDATA #IMPLIED
<!ELEMENT WorkoutEvent EMPTY>
]>
"""


def rec(type_, source, start, end, value=None, unit=None, body=""):
    attrs = f'type="{type_}" sourceName="{source}" sourceVersion="17.2"'
    if unit:
        attrs += f' unit="{unit}"'
    attrs += f' creationDate="{end}" startDate="{start}" endDate="{end}"'
    if value is not None:
        attrs += f' value="{value}"'
    return f" <Record {attrs}>{body}</Record>\n" if body else f" <Record {attrs}/>\n"


STEP = "HKQuantityTypeIdentifierStepCount"
SLEEP = "HKCategoryTypeIdentifierSleepAnalysis"
Z = " +0200"


def sleep(source, start, end, stage):
    return rec(SLEEP, source, start + Z, end + Z, f"HKCategoryValueSleepAnalysis{stage}")


def anna_xml() -> str:
    body = [
        rec(STEP, P, "2024-03-01 08:00:00" + Z, "2024-03-01 08:10:00" + Z, 1000, "count"),
        rec(STEP, P, "2024-03-01 12:00:00" + Z, "2024-03-01 12:10:00" + Z, 500, "count"),
        rec(STEP, W, "2024-03-01 08:00:00" + Z, "2024-03-01 08:10:00" + Z, 800, "count",
            body='\n  <MetadataEntry key="HKMetadataKeySyncVersion" value="1"/>\n '),
        rec(STEP, W, "2024-03-01 12:00:00" + Z, "2024-03-01 12:10:00" + Z, 600, "count"),
        rec(STEP, W, "2024-03-01 18:00:00" + Z, "2024-03-01 18:05:00" + Z, 300, "count"),
        rec(STEP, W, "2024-03-02 00:30:00" + Z, "2024-03-02 00:35:00" + Z, 40, "count"),
        rec(STEP, P, "2024-03-03 09:00:00" + Z, "2024-03-03 09:10:00" + Z, 200, "count"),
        ' <Correlation type="HKCorrelationTypeIdentifierFood" sourceName="' + P + '" startDate="2024-03-03 09:00:00'
        + Z + '" endDate="2024-03-03 09:10:00' + Z + '">\n'
        + rec(STEP, P, "2024-03-03 09:00:00" + Z, "2024-03-03 09:10:00" + Z, 200, "count")
        + " </Correlation>\n",
        rec(STEP, P, "2024-03-04 09:00:00" + Z, "2024-03-04 09:10:00" + Z, "abc", "count"),
        rec("HKQuantityTypeIdentifierHeadphoneAudioExposure", P, "2024-03-01 10:00:00" + Z,
            "2024-03-01 10:30:00" + Z, 70, "dBASPL"),
        rec("HKQuantityTypeIdentifierHeadphoneAudioExposure", P, "2024-03-02 10:00:00" + Z,
            "2024-03-02 10:30:00" + Z, 72, "dBASPL"),
        sleep(P, "2024-03-01 22:45:00", "2024-03-02 06:15:00", "InBed"),
        sleep(W, "2024-03-01 23:00:00", "2024-03-01 23:30:00", "AsleepCore"),
        sleep(W, "2024-03-01 23:30:00", "2024-03-02 00:30:00", "AsleepDeep"),
        sleep(W, "2024-03-02 00:30:00", "2024-03-02 01:00:00", "Awake"),
        sleep(W, "2024-03-02 01:00:00", "2024-03-02 02:30:00", "AsleepREM"),
        sleep(W, "2024-03-02 02:30:00", "2024-03-02 06:00:00", "AsleepCore"),
    ]
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' + IOS16_DTD + '<HealthData locale="en_US">\n'
            ' <ExportDate value="2024-03-10 09:00:00 +0200"/>\n <Me HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale"/>\n'
            + "".join(body) + "</HealthData>\n")


def bob_xml(secret: Path) -> str:
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<!DOCTYPE HealthData [\n<!ENTITY xxe SYSTEM "{secret.as_uri()}">\n]>\n'
            '<HealthData locale="en_US">\n'
            + rec(STEP, "Bob’s iPhone", "2024-03-05 09:00:00 +0100", "2024-03-05 09:10:00 +0100", "&xxe;", "count")
            + rec(STEP, "Bob’s iPhone", "2024-03-05 10:00:00 +0100", "2024-03-05 10:10:00 +0100", 700, "count",
                  body="&xxe;")
            + "</HealthData>\n")


@pytest.fixture(scope="module")
def apple_db(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("apple")
    data = tmp / "data"
    anna = data / "apple_health" / "anna" / "apple_health_export"
    anna.mkdir(parents=True)
    (anna / "export.xml").write_text(anna_xml(), encoding="utf-8")
    secret = tmp / "secret.txt"
    secret.write_text("12345")
    bob = data / "apple_health" / "bob"
    bob.mkdir(parents=True)
    with zipfile.ZipFile(bob / "export.zip", "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("apple_health_export/export.xml", bob_xml(secret))
        zf.writestr("apple_health_export/export_cda.xml", "<ClinicalDocument/>")
    db = tmp / "wag.duckdb"
    res = run_dbt(["build"], db=db, data_dir=data, target=tmp / "target",
                  extra_vars=json.dumps({"apple_health_cache_dir": str(tmp / "cache")}))
    assert res.success, res.result
    return db


def q(db, sql, params=None):
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def values(db, subject, metric):
    return {str(d): v for d, v in q(db, "select day, value from metric_values where subject_id = ? and metric_id = ? "
                                         "order by day", [subject, metric])}


def test_the_ios16_dtd_breaks_a_plain_parser():
    """The fixture's DTD is really malformed: expat on the file as written stops inside the DTD."""
    with pytest.raises(pyexpat.ExpatError):
        pyexpat.ParserCreate().Parse(anna_xml().encode(), True)


def test_steps_larger_source_local_day_and_correlation_once(apple_db):
    assert values(apple_db, "apple_health:anna", "steps_taken") == {
        "2024-03-01": 1700.0, "2024-03-02": 40.0, "2024-03-03": 200.0}


def test_sleep_across_midnight_on_the_wake_up_day(apple_db):
    got = {m: values(apple_db, "apple_health:anna", m) for m in
           ("asleep_duration", "deep_sleep_duration", "light_sleep_duration", "rem_sleep_duration",
            "wake_after_sleep_onset", "total_sleep_duration", "sleep_efficiency", "bedtime_start_time",
            "bedtime_end_time")}
    assert got["asleep_duration"] == {"2024-03-02": 390.0}
    assert got["deep_sleep_duration"] == {"2024-03-02": 60.0}
    assert got["light_sleep_duration"] == {"2024-03-02": 240.0}
    assert got["rem_sleep_duration"] == {"2024-03-02": 90.0}
    assert got["wake_after_sleep_onset"] == {"2024-03-02": 30.0}
    assert got["total_sleep_duration"] == {"2024-03-02": 420.0}
    assert got["sleep_efficiency"]["2024-03-02"] == pytest.approx(100 * 390 / 420)
    assert got["bedtime_start_time"] == {"2024-03-02": -60.0}
    assert got["bedtime_end_time"] == {"2024-03-02": 360.0}


def test_unmapped_types_counted_and_bad_values_rejected(apple_db):
    assert q(apple_db, "select subject_id, record_type, unit, n_records from stg_apple_health__unmapped_types") == [
        ("apple_health:anna", "HKQuantityTypeIdentifierHeadphoneAudioExposure", "dBASPL", 2)]
    rejected = q(apple_db, "select file, locator, reason from raw_rejected where dataset = 'apple_health' order by file")
    assert [(r[1].split(" ")[0], r[2]) for r in rejected] == [("line", "value is not a number")] * 2
    assert rejected[0][0].endswith("anna/apple_health_export/export.xml")
    assert rejected[1][0].endswith("bob/export.zip!apple_health_export/export.xml")


def test_external_entity_never_read_and_reported(apple_db):
    assert values(apple_db, "apple_health:bob", "steps_taken") == {"2024-03-05": 700.0}
    assert q(apple_db, "select count(*) from stg_apple_health__records where value_text like '%12345%'")[0][0] == 0
    rows = q(apple_db, "select person, status, records, doctype, external_entities, skipped_entity_refs "
                       "from stg_apple_health__files order by person")
    assert rows == [("anna", "read", 17, "removed (0 entity declarations)", None, 0),
                    ("bob", "read", 2, "removed (1 entity declarations)", "xxe (SYSTEM)", 1)]


def test_stream_keeps_line_numbers(tmp_path):
    """The removed DTD becomes as many newlines: a record's line is its line in the file."""
    text = anna_xml()
    report = ExportReport(person="anna", file="x")
    import io
    rows = list(iter_records(io.BytesIO(text.encode()), report))
    lines = text.splitlines()
    for row in rows:
        assert "<Record" in lines[row[0] - 1]
    stripper = DoctypeStripper(io.BytesIO(text.encode()))
    assert stripper.doctype_found and stripper.entities == []


def test_build_summary_states_what_was_done_with_each_file(apple_db):
    """`wag build` prints these rows (wag_cli/sql/apple_health_summary.sql)."""
    from importlib import resources

    sql = resources.files("wag_cli").joinpath("sql", "apple_health_summary.sql").read_text()
    con = duckdb.connect(str(apple_db), read_only=True)
    try:
        rows = {r[0]: r for r in con.execute(sql).fetchall()}
    finally:
        con.close()
    anna, bob = rows["apple_health:anna"], rows["apple_health:bob"]
    assert anna[2:5] == ("read", 17, "removed (0 entity declarations)")
    assert anna[-1] == "HKQuantityTypeIdentifierHeadphoneAudioExposure [dBASPL] 2"
    assert bob[5:7] == ("xxe (SYSTEM)", 1) and bob[-1] is None
