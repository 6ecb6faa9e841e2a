"""The LifeSnaps writer: the rows of the native daily CSV (FORMATS.md §2.2) for one demo participant.

:func:`lifesnaps_rows` simulates one subject (:mod:`wag_cli.demo.simulate`, RNG stream
``[seed, 2, k]``) and returns its rows of ``daily_fitbit_sema_df_unprocessed.csv`` (columns
:data:`LIFESNAPS_DAILY_COLUMNS`, first the unnamed pandas index, numbers written as the real file
writes them) with that subject's details; :func:`wag_cli.demo.write_demo_data` joins the rows of all
subjects into the one CRLF file. Ids are 24 hex digits like the Mongo ObjectIds of the real file
(:func:`lifesnaps_id`). A day with neither a worn tracker nor a self report has no row. Nothing here
raises.
"""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np

from .common import _clip, _iround, _r
from .simulate import _anomalies, _profile, _simulate


# Header of LifeSnaps daily_fitbit_sema_df_unprocessed.csv (FORMATS §2.2), first = unnamed index.
LIFESNAPS_DAILY_COLUMNS: list[str] = [
    "", "id", "date", "nightly_temperature", "nremhr", "rmssd", "spo2", "full_sleep_breathing_rate",
    "stress_score", "sleep_points_percentage", "exertion_points_percentage",
    "responsiveness_points_percentage", "daily_temperature_variation", "badgeType", "calories",
    "filteredDemographicVO2Max", "distance", "activityType", "bpm", "lightly_active_minutes",
    "moderately_active_minutes", "very_active_minutes", "sedentary_minutes", "mindfulness_session",
    "scl_avg", "resting_hr", "sleep_duration", "minutesToFallAsleep", "minutesAsleep", "minutesAwake",
    "minutesAfterWakeup", "sleep_efficiency", "sleep_deep_ratio", "sleep_wake_ratio",
    "sleep_light_ratio", "sleep_rem_ratio", "steps", "minutes_in_default_zone_1",
    "minutes_below_default_zone_1", "minutes_in_default_zone_2", "minutes_in_default_zone_3", "age",
    "gender", "bmi", "step_goal", "min_goal", "max_goal", "step_goal_label", "ALERT", "HAPPY",
    "NEUTRAL", "RESTED/RELAXED", "SAD", "TENSE/ANXIOUS", "TIRED", "ENTERTAINMENT", "GYM", "HOME",
    "HOME_OFFICE", "OTHER", "OUTDOORS", "TRANSIT", "WORK/SCHOOL",
]
_MOODS = ["ALERT", "HAPPY", "NEUTRAL", "RESTED/RELAXED", "SAD", "TENSE/ANXIOUS", "TIRED"]
_PLACES = ["ENTERTAINMENT", "GYM", "HOME", "HOME_OFFICE", "OTHER", "OUTDOORS", "TRANSIT", "WORK/SCHOOL"]


def lifesnaps_id(k: int) -> str:
    """24-hex id of the k-th (0-based) LifeSnaps demo participant: 'de30000000000000000000a1', …"""
    return "de3" + format(0xA1 + k, "021x")


def lifesnaps_rows(k: int, seed: int, days: int, start: date, index0: int) -> tuple[list[list[str]], dict]:
    """The k-th (0-based) participant's CSV rows, numbered from ``index0`` in the index column, and
    its details (subject id, row count, no-wear days, sick-week start, short night)."""
    rng = np.random.default_rng([seed, 2, k])
    prof = _profile(rng)
    anom = _anomalies(days, k, rng)
    sim = _simulate(rng, days, start, prof, **anom)
    uid = lifesnaps_id(k)
    has_profile = k % 2 == 0  # odd-numbered subjects lack the Fitbit profile (empty demographics)
    demo = (("<30", "MALE", "<19") if k % 4 == 0 else (">=30", "FEMALE", "23.0")) if has_profile else ("", "", "")
    rows: list[list[str]] = []
    hist: list[tuple[date, dict]] = []
    nowear: list[str] = []
    vo2 = prof["vo2"]

    def f0(x) -> str:  # '8833.0' style
        return f"{int(x)}.0"

    for i, day in enumerate(sim["dates"]):
        worn = bool(sim["wear"][i])
        sema = rng.random() < 0.35
        goal = rng.random() < 0.2
        row = {c: "" for c in LIFESNAPS_DAILY_COLUMNS}
        row["id"], row["date"] = uid, day.isoformat()
        if worn:
            sick = float(sim["sick"][i])
            tib, asleep, awake = int(sim["tib"][i]), int(sim["asleep"][i]), int(sim["awake"][i])
            stages = {"deep": int(sim["deep"][i]), "light": int(sim["lightsl"][i]), "rem": int(sim["rem"][i]),
                      "wake": awake}
            cutoff = day - timedelta(days=30)
            prev = [s for d, s in hist if d >= cutoff]
            hist.append((day, stages))
            rhr = float(sim["rhr"][i])
            if rng.random() < 0.95:
                row["nightly_temperature"] = repr(_r(34.0 + rng.normal(0, 0.35) + 0.8 * sick, 10))
            row["nremhr"] = repr(_r(rhr + 3 + rng.normal(0, 1.0), 3))
            row["rmssd"] = repr(_r(max(15.0, 70 + 6 * sim["sleep_z"][i] - 25 * sick + rng.normal(0, 8)), 3))
            if rng.random() < 0.45:
                row["spo2"] = repr(_r(_clip(95.6 + rng.normal(0, 0.7) - 1.0 * sick, 88, 100), 1))
            row["full_sleep_breathing_rate"] = repr(_r(14.8 + rng.normal(0, 0.5) + 1.2 * sick, 1))
            if rng.random() < 0.75:
                ks = int(_clip(_iround(22 + 4 * sim["sleep_z"][i] - 6 * sick + rng.normal(0, 2)), 0, 30))
                ke = int(_clip(_iround(28 + 3 * sim["act"][i] + rng.normal(0, 3)), 0, 40))
                kr = int(_clip(_iround(24 - 8 * sick + rng.normal(0, 2.5)), 0, 30))
                row["stress_score"] = f0(max(1, ks + ke + kr))
                row["sleep_points_percentage"] = repr(ks / 30)
                row["exertion_points_percentage"] = repr(ke / 40)
                row["responsiveness_points_percentage"] = repr(kr / 30)
            row["daily_temperature_variation"] = repr(_r(-1.6 + rng.normal(0, 0.45) + 1.5 * sick, 12))
            steps = int(sim["steps"][i])
            if steps > 12000 and rng.random() < 0.5:
                row["badgeType"] = "['DAILY_STEPS']" if rng.random() < 0.6 else "['DAILY_FLOORS', 'DAILY_STEPS']"
            row["calories"] = repr(_r(1650 + 0.045 * steps + 6 * sim["very"][i] + rng.normal(0, 40), 2))
            vo2 += 0.01 * float(sim["act"][i]) + rng.normal(0, 0.03)
            row["filteredDemographicVO2Max"] = repr(_r(vo2, 5))
            row["distance"] = repr(_r(steps * prof["stride_cm"] / 100.0, 1))
            acts = []
            if rng.random() < 0.4 + 0.2 * (sim["dow"][i] >= 5):
                acts.append("Walk")
            if prof["runner"] and sim["act"][i] > 0.5 and rng.random() < 0.5:
                acts.insert(0, "Run")
            if acts:
                row["activityType"] = repr(acts)
            row["bpm"] = repr(_r(rhr + 14 + 0.8 * sim["act"][i] + rng.normal(0, 1.5), 12))
            active = int(sim["light"][i] + sim["mod"][i] + sim["very"][i])
            row["lightly_active_minutes"] = str(int(sim["light"][i]))
            row["moderately_active_minutes"] = str(int(sim["mod"][i]))
            row["very_active_minutes"] = str(int(sim["very"][i]))
            row["sedentary_minutes"] = str(int(_clip(1440 - active - asleep + _iround(rng.normal(0, 20)), 200, 1300)))
            row["mindfulness_session"] = "True" if rng.random() < 0.05 else "False"
            if rng.random() < 0.12:
                row["scl_avg"] = repr(_r(max(1.0, 9 + rng.normal(0, 2.5)), 9))
            row["resting_hr"] = repr(_r(rhr, 12))
            row["sleep_duration"] = f0(tib * 60000)
            row["minutesToFallAsleep"] = "0.0"
            row["minutesAsleep"], row["minutesAwake"] = f0(asleep), f0(awake)
            row["minutesAfterWakeup"] = "0.0"
            row["sleep_efficiency"] = f0(round(100 * asleep / tib))
            if prev:
                for lv, col in (("deep", "sleep_deep_ratio"), ("wake", "sleep_wake_ratio"),
                                ("light", "sleep_light_ratio"), ("rem", "sleep_rem_ratio")):
                    avg = _iround(np.mean([p[lv] for p in prev]))
                    if avg > 0:
                        row[col] = repr(stages[lv] / avg)
            row["steps"] = f0(steps)
            z1 = int(_clip(_iround(60 + 0.6 * sim["mod"][i] + sim["very"][i] + rng.normal(0, 10)), 0, 400))
            z2 = int(_clip(_iround(0.5 * sim["very"][i] + rng.normal(0, 3)), 0, 200))
            z3 = int(_clip(_iround(0.15 * sim["very"][i] + rng.normal(0, 1)), 0, 100))
            worn_min = 1440 - int(rng.integers(0, 20))
            row["minutes_in_default_zone_1"] = f0(z1)
            row["minutes_below_default_zone_1"] = f0(worn_min - z1 - z2 - z3)
            row["minutes_in_default_zone_2"] = f0(z2)
            row["minutes_in_default_zone_3"] = f0(z3)
        else:
            nowear.append(day.isoformat())
            if not sema:
                continue  # no source had data that day -> no row (FORMATS §2.2)
        row["age"], row["gender"], row["bmi"] = demo
        if goal:
            lab = ("14999", "10000.0", "15000.0", "10000-14999") if prof["steps"] > 9000 else \
                  ("7999", "5000.0", "8000.0", "5000-7999")
            row["step_goal"], row["min_goal"], row["max_goal"], row["step_goal_label"] = lab
        if sema:
            sz = float(sim["sleep_z"][i])
            p = {"ALERT": 0.25 + 0.1 * sz, "HAPPY": 0.4 + 0.1 * sz - 0.3 * sim["sick"][i], "NEUTRAL": 0.3,
                 "RESTED/RELAXED": 0.2 + 0.15 * sz, "SAD": 0.05 + 0.2 * sim["sick"][i],
                 "TENSE/ANXIOUS": 0.1 - 0.05 * sz, "TIRED": 0.15 - 0.2 * sz + 0.4 * sim["sick"][i]}
            for m in _MOODS:
                row[m] = "1.0" if rng.random() < _clip(p[m], 0.02, 0.95) else "0.0"
            weekday = sim["dow"][i] < 5
            pp = {"ENTERTAINMENT": 0.08, "GYM": 0.05, "HOME": 0.6, "HOME_OFFICE": 0.25 if weekday else 0.02,
                  "OTHER": 0.05, "OUTDOORS": 0.15 + 0.2 * (not weekday), "TRANSIT": 0.1 if weekday else 0.04,
                  "WORK/SCHOOL": 0.45 if weekday else 0.03}
            for pl in _PLACES:
                row[pl] = "1.0" if rng.random() < pp[pl] else "0.0"
        rows.append([row[c] for c in LIFESNAPS_DAILY_COLUMNS])
    for j, r in enumerate(rows):
        r[0] = str(index0 + j)
    return rows, {
        "subject_id": f"lifesnaps:{uid}", "rows": len(rows), "no_wear_days": nowear,
        "sick_week_start": (sim["dates"][anom["sick_start"]].isoformat() if anom["sick_start"] is not None else None),
        "short_night": (sim["dates"][anom["short_night"]].isoformat() if anom["short_night"] is not None else None),
    }


