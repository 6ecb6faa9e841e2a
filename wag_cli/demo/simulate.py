"""The latent daily process behind the demo cohort: one subject's profile, days and anomalies.

:func:`_profile` draws a subject's baselines; :func:`_simulate` gives the latent and observed daily
values (a dict of arrays, one entry a day from ``start``: activity, wear, steps, active minutes, the
night ending that day, resting HR, morning self reports); :func:`_anomalies` places the sick week,
the very short night and the no-wear block. The links between measures are listed in the package
docstring (:mod:`wag_cli.demo`).

Determinism: every draw comes from the ``numpy.random.Generator`` passed in, in a fixed order, so
the writers that share it get identical values for identical arguments. Nothing here raises.
"""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np


_SICK_SHAPE = (0.5, 1.0, 1.0, 0.9, 0.7, 0.5, 0.3)  # illness intensity over the sick week


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

