"""Deterministic synthetic demo data in the native PMData and LifeSnaps layouts.

``write_demo_data(out_dir)`` writes a small fake cohort that the same staging models that read the
real datasets can read (raw formats: /work/shared/data/FORMATS.md §1 PMData, §2 LifeSnaps):

* ``pmdata/demoNN/fitbit/*.json`` + ``sleep_score.csv``, ``pmdata/demoNN/pmsys/{wellness,srpe}.csv``,
  ``pmdata/demoNN/googledocs/reporting.csv`` — subject ids become ``pmdata:demo01`` …
* ``lifesnaps/rais_anonymized/csv_rais_anonymized/daily_fitbit_sema_df_unprocessed.csv`` —
  ids ``de30000000000000000000a1`` … (24 hex digits, like the Mongo ObjectIds of the real file).

The native quirks are reproduced on purpose: numbers as JSON strings in the Fitbit series, four date
encodings (``YYYY-MM-DD HH:MM:SS``, ``…T…​.000``, ``MM/DD/YY`` and day-first ``DD/MM/YYYY``), PMSys
times in UTC (``Z``) while Fitbit times are local wall time (Europe/Oslo rules, like PMData),
distance per minute in centimetres, sleep ``duration`` in ms, one exact duplicate sleep record per
subject, naps (``mainSleep`` false, some ``classic``), ``{"date": null, "value": 0.0, "error": 0.0}``
resting-HR sentinels and 1440-sedentary-minute days when the tracker was not worn, skipped self
reports, an empty sRPE session (`` {},,``), CRLF + leading pandas index column in LifeSnaps.

A latent daily process per subject links the measures (so analyses have something to find):

* activity ``act_z`` = slow AR(1) fitness/motivation + daily noise + weekday effect (Saturday up,
  Sunday down) − illness;
* deep sleep of the night *after* a day rises with that day's activity;
* resting HR falls with the ~2-week moving average of activity, rises ~7 bpm in a sick week;
* short sleep → next-morning PMSys fatigue/mood/stress/sleep-quality scores fall (PMSys 1–5,
  5 = best, so the *scores* correlate positively with sleep duration); LifeSnaps ``stress_score``
  (1–100, higher = less stress) falls too;
* weekends: later and longer sleep, fewer self-reports, team sport on Saturdays;
* anomalies: a sick week (subject 2 of each dataset: high resting HR, poor sleep, few steps), one
  very short night per subject, random no-wear days and a 4-day no-wear block (subject 3).

Determinism: only ``numpy.random.default_rng`` seeded from ``seed`` (one stream per subject, keyed
by dataset and subject number), no wall clock, no network; floats are rounded before being written
with Python's shortest ``repr``, so identical arguments give identical bytes.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from datetime import date, datetime, timedelta
from pathlib import Path

import numpy as np

__all__ = ["write_demo_data", "LIFESNAPS_DAILY_COLUMNS", "pmdata_pid", "lifesnaps_id"]

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

_DAILY_MINUTE_FILES = (
    "lightly_active_minutes", "moderately_active_minutes", "very_active_minutes", "sedentary_minutes",
)
_SICK_SHAPE = (0.5, 1.0, 1.0, 0.9, 0.7, 0.5, 0.3)  # illness intensity over the sick week
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


def lifesnaps_id(k: int) -> str:
    """24-hex id of the k-th (0-based) LifeSnaps demo participant: 'de30000000000000000000a1', …"""
    return "de3" + format(0xA1 + k, "021x")


# --------------------------------------------------------------------------------------------------
# time helpers (Europe/Oslo DST rule: CEST from last Sunday of March 02:00 to last Sunday of
# October 03:00 local; computed by hand so no tz database is needed)

def _last_sunday(year: int, month: int) -> date:
    d = date(year, month + 1, 1) - timedelta(days=1) if month < 12 else date(year, 12, 31)
    return d - timedelta(days=(d.weekday() + 1) % 7)


def _utc_offset_hours(local: datetime) -> int:
    start = datetime.combine(_last_sunday(local.year, 3), datetime.min.time()) + timedelta(hours=2)
    end = datetime.combine(_last_sunday(local.year, 10), datetime.min.time()) + timedelta(hours=3)
    return 2 if start <= local < end else 1


def _to_utc(local: datetime) -> datetime:
    return local - timedelta(hours=_utc_offset_hours(local))


def _iso_utc_ms(t: datetime, ms: int) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S") + f".{ms:03d}Z"


def _fitbit_space(t: datetime) -> str:
    return t.strftime("%Y-%m-%d %H:%M:%S")


def _fitbit_t(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S") + ".000"


def _mdy(t: datetime) -> str:
    return t.strftime("%m/%d/%y %H:%M:%S")


def _r(x: float, nd: int) -> float:
    return round(float(x), nd)


def _clip(x: float, lo: float, hi: float) -> float:
    return lo if x < lo else hi if x > hi else x


def _iround(x: float) -> int:
    return int(np.rint(x))


# --------------------------------------------------------------------------------------------------
# latent process

def _profile(rng: np.random.Generator) -> dict:
    return {
        "steps": float(rng.uniform(6500, 11500)),
        "stride_cm": float(rng.uniform(68, 80)),
        "rhr": float(rng.uniform(50, 63)),
        "tib": float(rng.uniform(440, 490)),
        "bed": float(rng.uniform(-90, -30)),  # minutes from midnight of the wake-up day
        "light": float(rng.uniform(180, 260)),
        "mod": float(rng.uniform(15, 30)),
        "very": float(rng.uniform(15, 40)),
        "trend": float(rng.uniform(-0.002, 0.008)),  # fitness drift per day (act_z units)
        "runner": bool(rng.random() < 0.6),
        "report_rate": float(rng.uniform(0.8, 0.93)),
        "vo2": float(rng.uniform(38, 55)),
    }


def _simulate(rng: np.random.Generator, days: int, start: date, prof: dict, *, sick_start: int | None,
              short_night: int | None, nowear_block: tuple[int, int] | None) -> dict:
    """Latent and observed daily values for one subject; arrays of length `days` (index = day)."""
    n = days + 1  # index 0 = the day before `start` (its activity drives the first night)
    slow = np.zeros(n)
    eps = rng.normal(0.0, 0.15, n)
    slow[0] = eps[0] * 3
    for i in range(1, n):
        slow[i] = 0.97 * slow[i - 1] + eps[i]
    fast = rng.normal(0.0, 0.8, n)
    dates_all = [start + timedelta(days=i - 1) for i in range(n)]
    dow = np.array([d.weekday() for d in dates_all])
    wk = np.where(dow == 5, 0.6, np.where(dow == 6, -0.3, 0.0))
    sick = np.zeros(n)
    if sick_start is not None:
        for k, s in enumerate(_SICK_SHAPE):
            if 0 <= sick_start + k < days:
                sick[sick_start + k + 1] = s
    trend = prof["trend"] * (np.arange(n) - n / 2)
    act = slow + fast + wk + trend - 2.2 * sick

    # tracker wear
    wear = rng.random(n) >= 0.05
    if nowear_block is not None:
        b0, blen = nowear_block
        wear[b0 + 1:b0 + 1 + blen] = False
    if sick_start is not None:
        wear[sick_start + 1:sick_start + 1 + len(_SICK_SHAPE)] = True
    if short_night is not None:
        wear[short_night + 1] = True
    wear[0] = True

    # daily activity
    steps = np.maximum(800, np.rint(prof["steps"] * (1 + 0.28 * act) + rng.normal(0, 500, n)))
    very = np.maximum(0, np.rint(prof["very"] * (1 + 0.6 * act) + rng.normal(0, 4, n)))
    mod = np.maximum(0, np.rint(prof["mod"] * (1 + 0.5 * act) + rng.normal(0, 4, n)))
    light = np.maximum(20, np.rint(prof["light"] * (1 + 0.2 * act) + rng.normal(0, 15, n)))

    # night ending on each day (index i: wake-up day dates_all[i])
    wake_weekend = dow >= 5
    bed = prof["bed"] + rng.normal(0, 25, n) + np.where(wake_weekend, 55, 0)
    tib = np.clip(prof["tib"] + rng.normal(0, 35, n) + np.where(wake_weekend, 40, 0) + 10 * sick, 240, 620)
    wf = np.clip(0.085 + rng.normal(0, 0.02, n) + 0.09 * sick, 0.03, 0.4)
    act_prev = np.concatenate([[act[0]], act[:-1]])
    deep_frac = np.clip(0.155 + 0.025 * act_prev + rng.normal(0, 0.022, n) - 0.05 * sick, 0.04, 0.3)
    rem_frac = np.clip(0.21 + rng.normal(0, 0.02, n), 0.1, 0.3)
    if short_night is not None:
        j = short_night + 1
        tib[j] = 170 + float(rng.integers(0, 20))
        bed[j] = 65 + float(rng.integers(0, 30))
    tib = np.rint(tib)
    bed = np.rint(bed * 2) / 2  # 30-s resolution
    awake = np.rint(tib * wf)
    asleep = tib - awake
    deep = np.rint(asleep * deep_frac)
    rem = np.rint(asleep * rem_frac)
    lightsl = asleep - deep - rem

    # resting HR: ~2-week EWMA of activity, illness bump, bad-night bump
    ew = np.zeros(n)
    ew[0] = act[0]
    for i in range(1, n):
        ew[i] = 0.93 * ew[i - 1] + 0.07 * act[i]
    short_prev = (asleep < 300).astype(float)
    rhr = prof["rhr"] - 1.8 * ew + 7.5 * sick + 1.5 * short_prev + rng.normal(0, 0.7, n)

    # self reports (morning of the day, about the night that ended that day)
    base_asleep = prof["tib"] * (1 - 0.085)
    sleep_z = (asleep - base_asleep) / 45.0
    fatigue = np.clip(np.rint(3.2 + 0.6 * sleep_z - 0.3 * act_prev - 1.6 * sick + rng.normal(0, 0.7, n)), 1, 5)
    mood = np.clip(np.rint(3.3 + 0.35 * sleep_z - 1.0 * sick + 0.3 * wake_weekend + rng.normal(0, 0.65, n)), 1, 5)
    stress = np.clip(np.rint(3.1 + 0.4 * sleep_z + 0.5 * wake_weekend - 0.8 * sick + rng.normal(0, 0.7, n)), 1, 5)
    squal = np.clip(np.rint(3.1 + 0.6 * sleep_z - 12 * (wf - 0.085) + rng.normal(0, 0.6, n)), 1, 5)
    very_z = (np.concatenate([[very[0]], very[:-1]]) - prof["very"]) / max(prof["very"] * 0.6, 1.0)
    soreness = np.clip(np.rint(4.0 - 0.6 * very_z - 1.0 * sick + rng.normal(0, 0.6, n)), 1, 5)
    readiness = np.clip(np.rint(5.5 + 0.8 * (fatigue - 3) + 0.6 * (soreness - 3) + 0.5 * (mood - 3)
                                + rng.normal(0, 1.0, n)), 0, 10)
    sleep_h = np.clip(np.rint(asleep / 60.0 + rng.normal(0, 0.4, n)), 1, 12)
    report = rng.random(n) < np.where(wake_weekend, prof["report_rate"] - 0.2, prof["report_rate"])
    if short_night is not None:
        report[short_night + 1] = True

    s = slice(1, n)  # drop the helper day before `start`
    out = {
        "dates": dates_all[1:], "dow": dow[s], "act": act[s], "act_prev": act_prev[s], "sick": sick[s],
        "wear": wear[s], "steps": steps[s], "very": very[s], "mod": mod[s], "light": light[s],
        "bed": bed[s], "tib": tib[s], "awake": awake[s], "asleep": asleep[s], "deep": deep[s],
        "rem": rem[s], "lightsl": lightsl[s], "rhr": rhr[s], "sleep_z": sleep_z[s],
        "fatigue": fatigue[s], "mood": mood[s], "stress": stress[s], "squal": squal[s],
        "soreness": soreness[s], "readiness": readiness[s], "sleep_h": sleep_h[s], "report": report[s],
        "ew": ew[s],
    }
    # the first night: its wearer state is the day-before's; keep it recorded only if worn on day 0
    return out


def _anomalies(days: int, k: int, rng: np.random.Generator) -> dict:
    """Where subject k's anomalies fall (day indices), scaled to `days`."""
    sick = int(days * 0.45) if (k == 1 and days >= 21) else None
    short = int(rng.integers(max(days // 5, 1), max(days - 3, 2))) if days >= 10 else None
    if short is not None and sick is not None and sick - 2 <= short <= sick + len(_SICK_SHAPE) + 1:
        short = max(1, sick - 6)
    block = None
    if k == 2 and days >= 40:
        block = (int(days * 0.7), 4)
    return {"sick_start": sick, "short_night": short, "nowear_block": block}


# --------------------------------------------------------------------------------------------------
# writers

def _write_text(path: Path, text: str, files: list[Path]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    files.append(path)


def _csv_text(header: list[str], rows: list[list], lineterminator: str = "\n") -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator=lineterminator, quoting=csv.QUOTE_MINIMAL)
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue()


def _json_array(items: list) -> str:
    # Python's default separators (", ", ": ") = the PMData files; no trailing newline.
    return json.dumps(items, ensure_ascii=False)


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


def _write_pmdata_subject(root: Path, k: int, seed: int, days: int, start: date, files: list[Path]) -> dict:
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


def _lifesnaps_rows(k: int, seed: int, days: int, start: date, index0: int) -> tuple[list[list[str]], dict]:
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


# --------------------------------------------------------------------------------------------------

def write_demo_data(out_dir: Path, *, seed: int = 7, n_pmdata: int = 3, n_lifesnaps: int = 2, days: int = 120,
                    start: date = date(2024, 1, 1)) -> dict:
    """Write the synthetic PMData + LifeSnaps demo cohort under `out_dir` (native layouts).

    Args:
        out_dir: data root (what `WAG_DATA_DIR` / dbt var `data_dir` points at). Created if needed.
            Existing files with the same names are overwritten; stale ``pmdata/demoNN`` folders
            (from an earlier call with a larger ``n_pmdata``) are removed. Nothing else is touched.
        seed: RNG seed; identical arguments give byte-identical files.
        n_pmdata: number of PMData-style participants ('demo01' …), 0..99.
        n_lifesnaps: number of LifeSnaps-style participants, 0..94; 0 writes no LifeSnaps file.
        days: days per participant (>= 1), starting at `start`.
        start: first calendar day.

    Returns:
        dict with ``out_dir``, ``seed``, ``start``, ``end`` (ISO dates), ``days``, ``subjects``
        (dataset-qualified ids), ``files`` (sorted POSIX paths relative to out_dir), ``n_files``,
        ``details`` (per subject: no-wear days, sick-week start, short night, counts).

    Raises:
        ValueError: on days < 1 or subject counts out of range.
    """
    if days < 1:
        raise ValueError(f"days must be >= 1, got {days}")
    if not 0 <= n_pmdata <= 99 or not 0 <= n_lifesnaps <= 94:
        raise ValueError(f"n_pmdata must be 0..99 and n_lifesnaps 0..94, got {n_pmdata}, {n_lifesnaps}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files: list[Path] = []
    details: dict[str, dict] = {}
    subjects: list[str] = []

    pm_root = out / "pmdata"
    keep = {pmdata_pid(k) for k in range(n_pmdata)}
    if pm_root.is_dir():
        for p in sorted(pm_root.iterdir()):
            if p.is_dir() and p.name.startswith("demo") and p.name[4:].isdigit() and p.name not in keep:
                shutil.rmtree(p)
    for k in range(n_pmdata):
        info = _write_pmdata_subject(pm_root, k, seed, days, start, files)
        subjects.append(info["subject_id"])
        details[info["subject_id"]] = info

    ls_file = out / "lifesnaps" / "rais_anonymized" / "csv_rais_anonymized" / "daily_fitbit_sema_df_unprocessed.csv"
    if n_lifesnaps > 0:
        all_rows: list[list[str]] = []
        for k in range(n_lifesnaps):
            rows, info = _lifesnaps_rows(k, seed, days, start, len(all_rows))
            all_rows += rows
            subjects.append(info["subject_id"])
            details[info["subject_id"]] = info
        _write_text(ls_file, _csv_text(LIFESNAPS_DAILY_COLUMNS, all_rows, lineterminator="\r\n"), files)
    elif ls_file.exists():
        ls_file.unlink()

    rel = sorted(p.relative_to(out).as_posix() for p in files)
    return {
        "out_dir": str(out), "seed": seed, "start": start.isoformat(),
        "end": (start + timedelta(days=days - 1)).isoformat(), "days": days, "subjects": subjects,
        "files": rel, "n_files": len(rel), "details": details,
    }
