"""The PMData writer: one demo participant's native PMData folder (FORMATS.md §1).

:func:`write_pmdata_subject` writes ``<root>/demoNN/fitbit/*.json`` + ``sleep_score.csv``,
``pmsys/{wellness,srpe}.csv`` and ``googledocs/reporting.csv`` from one simulated subject
(:mod:`wag_cli.demo.simulate`, RNG stream ``[seed, 1, k]``) and returns that subject's details
(subject id ``pmdata:demoNN``, no-wear days, counts, sick week, short night).

The native quirks are reproduced on purpose: numbers as JSON strings in the Fitbit series, sparse
per-minute steps and distance (centimetres), sleep ``duration`` in ms with a stage hypnogram, one
exact duplicate sleep record, naps (some ``classic``), resting-HR sentinels and 1440-sedentary-minute
days when the tracker was not worn, PMSys times in UTC, day-first lifelog dates, an empty sRPE
session. Nothing here raises beyond what the file system does.
"""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta
from pathlib import Path

import numpy as np

from .common import _clip, _csv_text, _fitbit_space, _fitbit_t, _iround, _iso_utc_ms, _json_array, _mdy, _r, _to_utc, _write_text
from .simulate import _anomalies, _profile, _simulate


_DAILY_MINUTE_FILES = (
    "lightly_active_minutes", "moderately_active_minutes", "very_active_minutes", "sedentary_minutes",
)
_SORENESS_CODES = (12921003, 48979004, 32696007)
_EXERCISE = {  # name -> (activityTypeId, cadence steps/min, mean HR, kcal/min, sRPE names)
    "Walk": (90013, 105, 98, 5.0, None),
    "Run": (90009, 158, 152, 11.5, "['individual', 'running']"),
    "Sport": (15000, 80, 138, 9.0, "['team', 'soccer']"),
    "Bike": (90001, 0, 128, 8.0, "['individual', 'endurance']"),
}
_LOGID_EPOCH = datetime(2020, 1, 1)


def pmdata_pid(k: int) -> str:
    """Folder name of the k-th (0-based) PMData demo participant: 'demo01', 'demo02', …"""
    return f"demo{k + 1:02d}"


class _LogIds:
    """Fitbit-like log ids: grow with the start time, unique per subject."""

    def __init__(self, k: int):
        self.k = k
        self.used: set[int] = set()

    def __call__(self, t: datetime) -> int:
        i = 40_000_000_000 + int((t - _LOGID_EPOCH).total_seconds()) * 100 + self.k % 100
        while i in self.used:
            i += 100
        self.used.add(i)
        return i


def _hypnogram(start: datetime, deep: int, light: int, rem: int, wake: int) -> tuple[list[dict], dict]:
    """A short stage list (4 cycles) whose per-level seconds add up to the summary minutes."""
    cycles = 4
    wdeep = [0.4, 0.3, 0.2, 0.1]
    wrem = [0.1, 0.2, 0.3, 0.4]

    def split(total: int, w: list[float]) -> list[int]:
        parts = [int(total * x) for x in w]
        parts[-1] += total - sum(parts)
        return parts

    d_parts, r_parts = split(deep, wdeep), split(rem, wrem)
    l_parts = split(light, [0.25] * cycles)
    w_parts = split(max(wake - 1, 0), [0.25] * cycles)
    segs: list[tuple[str, int]] = [("wake", 1)] if wake >= 1 else []
    for c in range(cycles):
        l1 = l_parts[c] // 2
        segs += [("light", l1), ("deep", d_parts[c]), ("light", l_parts[c] - l1), ("rem", r_parts[c]),
                 ("wake", w_parts[c])]
    data, counts = [], {"deep": 0, "light": 0, "rem": 0, "wake": 0}
    t = start
    for level, minutes in segs:
        if minutes <= 0:
            continue
        if data and data[-1]["level"] == level:
            data[-1]["seconds"] += minutes * 60
        else:
            data.append({"dateTime": _fitbit_t(t), "level": level, "seconds": minutes * 60})
            counts[level] += 1
        t += timedelta(minutes=minutes)
    return data, counts


def _sleep_record(logid: int, start_t: datetime, tib: int, deep: int, light: int, rem: int, awake: int,
                  avg30: dict, *, main: bool) -> dict:
    end_t = start_t + timedelta(minutes=tib)
    asleep = deep + light + rem
    data, counts = _hypnogram(start_t, deep, light, rem, awake)
    summary = {
        "deep": {"count": counts["deep"], "minutes": deep, "thirtyDayAvgMinutes": avg30["deep"]},
        "wake": {"count": counts["wake"], "minutes": awake, "thirtyDayAvgMinutes": avg30["wake"]},
        "light": {"count": counts["light"], "minutes": light, "thirtyDayAvgMinutes": avg30["light"]},
        "rem": {"count": counts["rem"], "minutes": rem, "thirtyDayAvgMinutes": avg30["rem"]},
    }
    return {
        "logId": logid, "dateOfSleep": end_t.date().isoformat(), "startTime": _fitbit_space(start_t),
        "endTime": _fitbit_t(end_t), "duration": tib * 60000, "minutesToFallAsleep": 0,
        "minutesAsleep": asleep, "minutesAwake": awake, "minutesAfterWakeup": 0, "timeInBed": tib,
        "efficiency": int(round(100 * asleep / tib)) if tib else 0, "type": "stages", "infoCode": 0,
        "levels": {"summary": summary, "data": data, "shortData": []}, "mainSleep": main,
    }


def _classic_nap(logid: int, start_t: datetime, tib: int, restless: int) -> dict:
    end_t = start_t + timedelta(minutes=tib)
    asleep = tib - restless
    data = [{"dateTime": _fitbit_t(start_t), "level": "asleep", "seconds": asleep * 60}]
    if restless:
        data.append({"dateTime": _fitbit_t(start_t + timedelta(minutes=asleep)), "level": "restless",
                     "seconds": restless * 60})
    return {
        "logId": logid, "dateOfSleep": end_t.date().isoformat(), "startTime": _fitbit_space(start_t),
        "endTime": _fitbit_t(end_t), "duration": tib * 60000, "minutesToFallAsleep": 0,
        "minutesAsleep": asleep, "minutesAwake": restless, "minutesAfterWakeup": 0, "timeInBed": tib,
        "efficiency": int(round(100 * asleep / tib)), "type": "classic", "infoCode": 2,
        "levels": {"summary": {"restless": {"count": 1 if restless else 0, "minutes": restless},
                               "awake": {"count": 0, "minutes": 0},
                               "asleep": {"count": 0, "minutes": asleep}},
                   "data": data},
        "mainSleep": False,
    }


def _exercises_for_day(rng: np.random.Generator, day: date, i: int, sim: dict, prof: dict) -> list[dict]:
    """Exercise bouts of one worn day: (name, start local datetime, minutes)."""
    out = []
    weekend = sim["dow"][i] >= 5
    if rng.random() < 0.35 + 0.2 * weekend:
        start_min = int(rng.integers((10 if weekend else 8) * 60, 18 * 60 + 30))
        out.append(("Walk", start_min, int(rng.integers(15, 46))))
    if sim["dow"][i] == 5 and rng.random() < 0.6:
        out.append(("Sport", 11 * 60 + int(rng.integers(0, 30)), int(rng.integers(60, 91))))
    elif prof["runner"] and sim["act"][i] > 0.3 and rng.random() < 0.6:
        start_min = int(rng.integers(9 * 60, 11 * 60)) if weekend else int(rng.integers(17 * 60, 19 * 60 + 30))
        out.append(("Run", start_min, int(rng.integers(25, 61))))
    elif sim["act"][i] > 0.8 and rng.random() < 0.3:
        out.append(("Bike", int(rng.integers(16 * 60, 18 * 60)), int(rng.integers(30, 75))))
    # no overlaps: keep bouts that start after the previous one ended
    out.sort(key=lambda x: x[1])
    kept: list[tuple[str, int, int]] = []
    for b in out:
        if not kept or b[1] >= kept[-1][1] + kept[-1][2] + 5:
            kept.append(b)
    res = []
    for name, start_min, minutes in kept:
        sec = int(rng.integers(0, 60))
        res.append({"name": name, "start": datetime.combine(day, datetime.min.time())
                    + timedelta(minutes=start_min, seconds=sec), "minutes": minutes, "start_min": start_min})
    return res


_HHMM = [f"{m // 60:02d}:{m % 60:02d}:00" for m in range(1440)]


def _minute_series(rng: np.random.Generator, day: date, total_steps: int, bouts: list[dict],
                   wake_min: int, bed_min: int, stride_cm: float) -> tuple[list[str], list[str], int]:
    """Sparse per-minute steps/distance JSON items for one worn day; returns (steps, dist, day total).

    Exercise bouts get cadence-like steps in their minutes, the rest of the day's steps are spread
    over random waking minutes, and some idle minutes (day and night) are reported with value 0.
    Distance = steps x stride in centimetres, rounded to 10 cm (running strides 25 % longer).
    """
    values = np.full(1440, -1, dtype=np.int64)  # -1 = minute not reported
    ex_total = 0
    for b in bouts:
        cad = _EXERCISE[b["name"]][1]
        m0, m1 = b["start_min"], min(b["start_min"] + b["minutes"], 1440)
        if cad == 0 or m1 <= m0:
            values[m0:m1] = np.maximum(values[m0:m1], 0)
            b["steps"] = 0
            continue
        v = np.maximum(0, np.rint(cad + rng.normal(0, cad * 0.08, m1 - m0))).astype(np.int64)
        values[m0:m1] = v
        b["steps"] = int(v.sum())
        ex_total += int(v.sum())
    rest = max(total_steps - ex_total, 300)
    lo, hi = max(0, min(wake_min, 1200)), min(1439, max(bed_min, wake_min + 120))
    free = np.flatnonzero(values[lo:hi + 1] < 0) + lo
    n_walk = int(_clip(rest // 70, 1, max(1, len(free) // 2)))
    walk = rng.choice(free, size=n_walk, replace=False)
    w = rng.integers(30, 130, size=n_walk)
    share = (rest * w) // int(w.sum())
    share[: rest - int(share.sum())] += 1
    values[walk] = share
    idle_pool = np.flatnonzero(values < 0)
    n_idle = min(len(idle_pool), int(rng.integers(120, 220)))
    values[rng.choice(idle_pool, size=n_idle, replace=False)] = 0
    rep = np.flatnonzero(values >= 0)
    v = values[rep]
    cm = (np.rint(v * stride_cm * np.where(v > 140, 1.25, 1.0) / 10.0) * 10).astype(np.int64)
    d = day.isoformat()
    steps_items = [f'{{"dateTime": "{d} {_HHMM[m]}", "value": "{x}"}}' for m, x in zip(rep.tolist(), v.tolist())]
    dist_items = [f'{{"dateTime": "{d} {_HHMM[m]}", "value": "{x}"}}' for m, x in zip(rep.tolist(), cm.tolist())]
    return steps_items, dist_items, int(v.sum())


def write_pmdata_subject(root: Path, k: int, seed: int, days: int, start: date, files: list[Path]) -> dict:
    """Write the k-th (0-based) participant's folder under ``root`` (appending each path to ``files``);
    return its details (subject id, no-wear days, counts, sick-week start, short night)."""
    rng = np.random.default_rng([seed, 1, k])
    prof = _profile(rng)
    anom = _anomalies(days, k, rng)
    sim = _simulate(rng, days, start, prof, **anom)
    pid = pmdata_pid(k)
    fit, pms, gdoc = root / pid / "fitbit", root / pid / "pmsys", root / pid / "googledocs"
    logid = _LogIds(k + 1)

    daily = {name: [] for name in _DAILY_MINUTE_FILES}
    rhr_items, steps_items, dist_items = [], [], []
    sleeps: list[dict] = []
    scores: list[list] = []
    exercises: list[dict] = []
    srpe_rows: list[list] = []
    wellness_rows: list[list] = []
    reporting_rows: list[list] = []
    stage_hist: list[tuple[date, dict]] = []
    nowear: list[str] = []
    dup_done = False
    classic_nap_done = False

    for i, day in enumerate(sim["dates"]):
        dt0 = datetime.combine(day, datetime.min.time())
        key = _fitbit_space(dt0)
        worn = bool(sim["wear"][i])
        # ---- main sleep ending this morning
        tib = int(sim["tib"][i])
        bed_t = dt0 + timedelta(minutes=float(sim["bed"][i]))
        wake_min = int((bed_t + timedelta(minutes=tib) - dt0).total_seconds() // 60)
        if worn:
            cutoff = day - timedelta(days=30)
            prev = [s for d, s in stage_hist if d >= cutoff]
            avg30 = {lv: (_iround(np.mean([p[lv] for p in prev])) if prev else 0)
                     for lv in ("deep", "light", "rem", "wake")}
            stages = {"deep": int(sim["deep"][i]), "light": int(sim["lightsl"][i]), "rem": int(sim["rem"][i]),
                      "wake": int(sim["awake"][i])}
            rec = _sleep_record(logid(bed_t), bed_t, tib, stages["deep"], stages["light"], stages["rem"],
                                stages["wake"], avg30, main=True)
            sleeps.append(rec)
            if not dup_done and i >= min(5, days - 1):
                sleeps.append(json.loads(json.dumps(rec)))  # exact duplicate (FORMATS §0.6)
                dup_done = True
            stage_hist.append((day, stages))
            if rng.random() < 0.9:
                restl = stages["wake"] / tib
                comp = int(_clip(_iround(13 + 40 * (stages["deep"] + stages["rem"]) / tib - 20 * restl
                                         + rng.normal(0, 1.5)), 5, 25))
                revit = int(_clip(_iround(22 - 0.6 * (sim["rhr"][i] - prof["rhr"]) - 30 * restl
                                          + rng.normal(0, 1.5)), 5, 25))
                durs = int(_clip(_iround(50 * min(sim["asleep"][i], 480) / 480 - 5 + rng.normal(0, 1.5)), 5, 50))
                ts = rec["endTime"][:19] + "Z"  # local time despite the Z (FORMATS §0.3)
                scores.append([ts, rec["logId"], comp + revit + durs, comp, revit, durs, stages["deep"],
                               _iround(sim["rhr"][i]), repr(restl)])
        # ---- activity of the day
        for name, col in zip(_DAILY_MINUTE_FILES, ("light", "mod", "very", None)):
            if not worn:
                v = 1440 if name == "sedentary_minutes" else 0
            elif col is None:
                active = int(sim["light"][i] + sim["mod"][i] + sim["very"][i])
                v = int(_clip(1440 - active - int(sim["asleep"][i]) + _iround(rng.normal(0, 20)), 200, 1300))
            else:
                v = int(sim[col][i])
            daily[name].append({"dateTime": key, "value": str(v)})
        if worn:
            val = _r(sim["rhr"][i], 12)
            rhr_items.append({"dateTime": key, "value": {"date": day.strftime("%m/%d/%y"), "value": val,
                                                          "error": _r(6.8 + 0.05 * rng.normal(), 12)}})
        else:
            rhr_items.append({"dateTime": key, "value": {"date": None, "value": 0.0, "error": 0.0}})
            nowear.append(day.isoformat())
        if worn:
            bouts = _exercises_for_day(rng, day, i, sim, prof)
            next_bed = 1440 + int(sim["bed"][i + 1]) if i + 1 < days else 1440 - 60
            st, di, _total = _minute_series(rng, day, int(sim["steps"][i]), bouts, wake_min, next_bed,
                                            prof["stride_cm"])
            steps_items += st
            dist_items += di
            for b in bouts:
                type_id, cad, hr, kcal, srpe_names = _EXERCISE[b["name"]]
                dur_ms = b["minutes"] * 60000 + int(rng.integers(0, 60)) * 1000
                start_t = b["start"]
                ex = {
                    "logId": logid(start_t), "activityName": b["name"], "activityTypeId": type_id,
                    "activityLevel": [{"minutes": 0, "name": "sedentary"},
                                      {"minutes": b["minutes"] // 4, "name": "lightly"},
                                      {"minutes": b["minutes"] // 4, "name": "fairly"},
                                      {"minutes": b["minutes"] - 2 * (b["minutes"] // 4), "name": "very"}],
                    "averageHeartRate": int(hr + rng.integers(-8, 9)),
                    "calories": _iround(kcal * b["minutes"] * (1 + 0.1 * rng.normal())),
                    "duration": dur_ms, "activeDuration": dur_ms, "steps": int(b.get("steps", 0)),
                    "logType": "auto_detected",
                    "manualValuesSpecified": {"calories": False, "distance": False, "steps": False},
                    "lastModified": _mdy(start_t + timedelta(milliseconds=dur_ms, minutes=20)),
                    "startTime": _fitbit_space(start_t), "originalStartTime": _mdy(start_t),
                    "originalDuration": dur_ms, "hasGps": False, "shouldFetchDetails": False,
                }
                exercises.append(ex)
                if srpe_names and rng.random() < 0.75:
                    end_local = start_t + timedelta(milliseconds=dur_ms, minutes=int(rng.integers(5, 40)))
                    srpe_rows.append([_iso_utc_ms(_to_utc(end_local), int(rng.integers(0, 1000))), srpe_names,
                                      int(_clip(_iround(5 + 2 * (b["name"] != "Walk") + rng.normal(0, 1.2)), 1, 10)),
                                      int(5 * _iround(b["minutes"] / 5))])
            # an afternoon nap now and then (mainSleep false)
            if rng.random() < 0.04 or (i == days // 2 and not classic_nap_done):
                nap_t = dt0 + timedelta(minutes=int(rng.integers(13 * 60, 16 * 60 + 30)), seconds=30 * int(rng.integers(0, 2)))
                nap_len = int(rng.integers(25, 95))
                if not classic_nap_done:
                    sleeps.append(_classic_nap(logid(nap_t), nap_t, nap_len, int(rng.integers(1, 6))))
                    classic_nap_done = True
                else:
                    w_ = int(rng.integers(2, 8))
                    a_ = nap_len - w_
                    d_ = a_ // 6
                    r_ = a_ // 8
                    sleeps.append(_sleep_record(logid(nap_t), nap_t, nap_len, d_, a_ - d_ - r_, r_, w_,
                                                {"deep": 0, "light": 0, "rem": 0, "wake": 0}, main=False))
        # ---- PMSys wellness (morning report, UTC)
        if sim["report"][i]:
            local = dt0 + timedelta(minutes=int(rng.integers(7 * 60, 9 * 60 + 30)) + 60 * int(sim["dow"][i] >= 5),
                                    seconds=int(rng.integers(0, 60)))
            sor = int(sim["soreness"][i])
            if sor >= 4:
                area = "[]"
            elif rng.random() < 0.5:
                area = f"[{_SORENESS_CODES[int(rng.integers(0, 3))]}]"
            else:
                area = f"[{_SORENESS_CODES[1]}, {_SORENESS_CODES[2]}]"
            wellness_rows.append([_iso_utc_ms(_to_utc(local), int(rng.integers(0, 1000))), int(sim["fatigue"][i]),
                                  int(sim["mood"][i]), int(sim["readiness"][i]), int(sim["sleep_h"][i]),
                                  int(sim["squal"][i]), sor, area, int(sim["stress"][i])])
        # ---- lifelog (googledocs), day-first dates, sometimes batch-entered later
        if rng.random() < 0.72:
            lag = 0 if rng.random() < 0.8 else int(rng.integers(1, 10))
            sub = dt0 + timedelta(days=lag, minutes=int(rng.integers(20 * 60, 23 * 60 + 50)), seconds=int(rng.integers(0, 60)))
            meals = [m for m, p in (("Breakfast", 0.85), ("Lunch", 0.7), ("Dinner", 0.9), ("Evening", 0.3))
                     if rng.random() < p] or ["Dinner"]
            weight = ""
            if rng.random() < 0.2:
                wv = 72 + 8 * k + rng.normal(0, 0.6)
                weight = str(_iround(wv)) if rng.random() < 0.5 else f"{wv:.1f}"
            alcohol = "Yes" if (sim["dow"][i] in (4, 5) and rng.random() < 0.4) else ("Maybe" if rng.random() < 0.03 else "No")
            row = [day.strftime("%d/%m/%Y"), sub.strftime("%d/%m/%Y %H:%M:%S"), ", ".join(meals), weight,
                   int(rng.integers(3, 11)), alcohol]
            reporting_rows.append(row)
            if rng.random() < 0.03:  # duplicate date row (FORMATS §1.7)
                reporting_rows.append([row[0], (sub + timedelta(minutes=7)).strftime("%d/%m/%Y %H:%M:%S"),
                                       row[2], row[3], row[4], row[5]])

    # an empty sRPE session (FORMATS §1.6)
    if days >= 3:
        t = datetime.combine(sim["dates"][days // 3], datetime.min.time()) + timedelta(hours=13, minutes=34)
        srpe_rows.append([_iso_utc_ms(t, 327), " {}", "", ""])
    srpe_rows.sort(key=lambda r: r[0])
    sleeps.sort(key=lambda r: (r["dateOfSleep"], r["startTime"]))
    exercises.sort(key=lambda r: r["startTime"])

    for name in _DAILY_MINUTE_FILES:
        _write_text(fit / f"{name}.json", _json_array(daily[name]), files)
    _write_text(fit / "resting_heart_rate.json", _json_array(rhr_items), files)
    _write_text(fit / "steps.json", "[" + ", ".join(steps_items) + "]", files)
    _write_text(fit / "distance.json", "[" + ", ".join(dist_items) + "]", files)
    _write_text(fit / "sleep.json", _json_array(sleeps), files)
    _write_text(fit / "exercise.json", _json_array(exercises), files)
    _write_text(fit / "sleep_score.csv", _csv_text(
        ["timestamp", "sleep_log_entry_id", "overall_score", "composition_score", "revitalization_score",
         "duration_score", "deep_sleep_in_minutes", "resting_heart_rate", "restlessness"], scores), files)
    _write_text(pms / "wellness.csv", _csv_text(
        ["effective_time_frame", "fatigue", "mood", "readiness", "sleep_duration_h", "sleep_quality",
         "soreness", "soreness_area", "stress"], wellness_rows), files)
    _write_text(pms / "srpe.csv", _csv_text(
        ["end_date_time", "activity_names", "perceived_exertion", "duration_min"], srpe_rows), files)
    _write_text(gdoc / "reporting.csv", _csv_text(
        ["date", "timestamp", "meals", "weight", "glasses_of_fluid", "alcohol_consumed"], reporting_rows), files)

    return {
        "subject_id": f"pmdata:{pid}", "no_wear_days": nowear, "sleep_logs": len(sleeps),
        "wellness_reports": len(wellness_rows), "exercises": len(exercises),
        "sick_week_start": (sim["dates"][anom["sick_start"]].isoformat() if anom["sick_start"] is not None else None),
        "short_night": (sim["dates"][anom["short_night"]].isoformat() if anom["short_night"] is not None else None),
    }

