"""Synthetic Apple Health export of a given size, for the streaming benchmark (issue 28).

    python bench/apple_export.py OUT_DIR --gb 2      # writes OUT_DIR/apple_health/bench/apple_health_export/export.xml

The file follows Apple's layout: the iOS 16 DTD with its defect (an unclosed ATTLIST), then per day
~1,400 records of one person: step and distance samples from an iPhone and an Apple Watch (the same
steps counted twice), heart-rate samples with a MetadataEntry child, active/basal energy, a resting
heart rate, a blood-pressure Correlation whose two records are repeated at top level, unmapped types,
and a night of watch sleep stages plus the phone's in-bed sample. Deterministic (no randomness), so two
runs write the same bytes. Then run the build on OUT_DIR (see bench/RESULTS.md).
"""

from __future__ import annotations

import argparse
import datetime as dt
from pathlib import Path

DTD = """<!DOCTYPE HealthData [
<!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord)*)>
<!ATTLIST HealthData locale CDATA #REQUIRED>
<!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
<!ATTLIST Record type CDATA #REQUIRED unit CDATA #IMPLIED value CDATA #IMPLIED sourceName CDATA #REQUIRED
  startDate CDATA #REQUIRED endDate CDATA #REQUIRED>
<!ATTLIST WorkoutActivity
  uuid CDATA #REQUIRED
  startDate CDATA #REQUIRED
<!ELEMENT WorkoutEvent EMPTY>
]>
"""
PHONE, WATCH = "Anna’s iPhone", "Anna’s Apple Watch"


def _rec(type_, source, start, end, value, unit, body=""):
    head = (f' <Record type="{type_}" sourceName="{source}" sourceVersion="17.2" device="&lt;&lt;HKDevice: 0x28&gt;&gt;" '
            f'unit="{unit}" creationDate="{end}" startDate="{start}" endDate="{end}" value="{value}"')
    return head + (f">\n{body} </Record>\n" if body else "/>\n")


def _ts(day: dt.date, minute: int, tz: str = "+0200") -> str:
    t = dt.datetime.combine(day, dt.time()) + dt.timedelta(minutes=minute)
    return t.strftime("%Y-%m-%d %H:%M:%S ") + tz


def day_records(day: dt.date, k: int) -> str:
    out = []
    for m in range(6 * 60, 22 * 60, 3):                          # phone + watch steps every 3 min
        steps = (m * 7 + k) % 90
        out.append(_rec("HKQuantityTypeIdentifierStepCount", PHONE, _ts(day, m), _ts(day, m + 3), steps, "count"))
        out.append(_rec("HKQuantityTypeIdentifierStepCount", WATCH, _ts(day, m), _ts(day, m + 3), steps + 3, "count"))
        out.append(_rec("HKQuantityTypeIdentifierDistanceWalkingRunning", WATCH, _ts(day, m), _ts(day, m + 3),
                        round(steps * 0.00075, 5), "km"))
    for m in range(0, 24 * 60, 5):                               # heart rate every 5 min, with metadata
        meta = '  <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="0"/>\n'
        out.append(_rec("HKQuantityTypeIdentifierHeartRate", WATCH, _ts(day, m), _ts(day, m), 55 + (m + k) % 40,
                        "count/min", meta))
        out.append(_rec("HKQuantityTypeIdentifierActiveEnergyBurned", WATCH, _ts(day, m), _ts(day, m + 5),
                        round(0.5 + ((m + k) % 11) / 3, 3), "kcal"))
        out.append(_rec("HKQuantityTypeIdentifierBasalEnergyBurned", WATCH, _ts(day, m), _ts(day, m + 5), 5.9, "kcal"))
        out.append(_rec("HKQuantityTypeIdentifierHeadphoneAudioExposure", PHONE, _ts(day, m), _ts(day, m + 5),
                        60 + (m % 13), "dBASPL"))
    out.append(_rec("HKQuantityTypeIdentifierRestingHeartRate", WATCH, _ts(day, 600), _ts(day, 600), 50 + k % 9, "count/min"))
    sys_, dia = (_rec("HKQuantityTypeIdentifierBloodPressureSystolic", PHONE, _ts(day, 480), _ts(day, 480), 118, "mmHg"),
                 _rec("HKQuantityTypeIdentifierBloodPressureDiastolic", PHONE, _ts(day, 480), _ts(day, 480), 76, "mmHg"))
    out += [sys_, dia, f' <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="{PHONE}" '
            f'startDate="{_ts(day, 480)}" endDate="{_ts(day, 480)}">\n', sys_, dia, " </Correlation>\n"]
    stages = [("AsleepCore", 30), ("AsleepDeep", 60), ("Awake", 10), ("AsleepREM", 80), ("AsleepCore", 200 + k % 30)]
    m = -60                                                     # 23:00 the evening before
    out.append(_rec("HKCategoryTypeIdentifierSleepAnalysis", PHONE, _ts(day, -75), _ts(day, 420),
                    "HKCategoryValueSleepAnalysisInBed", "").replace(' unit=""', ""))
    for stage, length in stages:
        out.append(_rec("HKCategoryTypeIdentifierSleepAnalysis", WATCH, _ts(day, m), _ts(day, m + length),
                        f"HKCategoryValueSleepAnalysis{stage}", "").replace(' unit=""', ""))
        m += length
    return "".join(out)


def write_export(path: Path, target_bytes: int) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    day, k, written = dt.date(2014, 1, 1), 0, 0
    with open(path, "w", encoding="utf-8") as f:
        head = ('<?xml version="1.0" encoding="UTF-8"?>\n' + DTD + '<HealthData locale="en_US">\n'
                ' <ExportDate value="2026-12-01 09:00:00 +0200"/>\n <Me HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale"/>\n')
        written += f.write(head)
        while written < target_bytes:
            written += len(chunk := day_records(day, k).encode())
            f.write(chunk.decode())
            day += dt.timedelta(days=1)
            k += 1
        f.write("</HealthData>\n")
    return k


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("--gb", type=float, default=2.0)
    a = ap.parse_args()
    target = a.out_dir / "apple_health" / "bench" / "apple_health_export" / "export.xml"
    days = write_export(target, int(a.gb * 1e9))
    print(f"{target}: {target.stat().st_size / 1e9:.2f} GB, {days} days")
