"""A seeded synthetic population as a wide daily CSV (issue 10; the input of bench/scale.py).

Each subject has four latent daily factors (activity, sleep, stress, cardio-recovery) that follow an
AR(1) process, so metrics that load on the same factor correlate the way wearable metrics do (steps
with distance and active minutes, time in bed with time asleep, stress against HRV and mood).
Per subject the loadings are perturbed and the means shifted, so individual correlations differ
from the pooled ones. Then whole days go missing (non-wear), single cells go missing, and a few
cells become anomalies (a value 3-4 sd away, clipped to the metric's physical bounds).

Usage:
    python bench/popgen.py --subjects 500 --days 365 --metrics 28 --out /tmp/pop500.csv [--seed 7]

Columns: participant_id, date, then one column per metric named by its catalog name (e.g.
"Steps taken"), which the wide loader maps to the catalog id. Values are in catalog units.
"""

from __future__ import annotations

import argparse
import time
from datetime import date, timedelta
from pathlib import Path

import numpy as np
import pandas as pd

# catalog name, mean, sd, loadings on (activity, sleep, stress, cardio), lower, upper, decimals
METRICS: list[tuple[str, float, float, tuple[float, float, float, float], float, float, int]] = [
    ("Steps taken", 8000, 3000, (0.9, 0.0, -0.2, 0.1), 0, 100000, 0),
    ("Distance traveled", 6000, 2300, (0.9, 0.0, -0.2, 0.1), 0, 200000, 0),
    ("Active time", 200, 70, (0.85, 0.0, -0.1, 0.1), 0, 1440, 0),
    ("Energy expenditure", 2400, 350, (0.7, 0.0, 0.0, 0.1), 0, 15000, 0),
    ("Inactive time", 700, 120, (-0.7, -0.2, 0.1, 0.0), 0, 1440, 0),
    ("Lightly active time", 180, 60, (0.7, 0.0, 0.0, 0.0), 0, 1440, 0),
    ("Moderately active time", 20, 15, (0.6, 0.0, -0.1, 0.1), 0, 1440, 0),
    ("Highly active time", 25, 20, (0.6, 0.0, -0.1, 0.2), 0, 1440, 0),
    ("Total sleep duration", 440, 55, (0.0, 0.9, -0.1, 0.0), 0, 1440, 0),
    ("Asleep duration", 400, 50, (0.0, 0.9, -0.2, 0.0), 0, 1440, 0),
    ("Deep sleep duration", 80, 20, (0.1, 0.6, -0.2, 0.2), 0, 1440, 0),
    ("Light sleep duration", 220, 40, (0.0, 0.7, 0.0, 0.0), 0, 1440, 0),
    ("REM sleep duration", 90, 25, (0.0, 0.6, -0.2, 0.0), 0, 1440, 0),
    ("Sleep efficiency", 90, 4, (0.0, 0.4, -0.3, 0.1), 0, 100, 0),
    ("Wake after sleep onset", 45, 15, (0.0, 0.3, 0.4, 0.0), 0, 1440, 0),
    ("Bedtime start time", -30, 45, (-0.2, -0.4, 0.2, 0.0), -1440, 1440, 0),
    ("Sleep score", 78, 8, (0.0, 0.7, -0.3, 0.1), 0, 100, 0),
    ("Resting heart rate", 60, 5, (-0.2, -0.2, 0.4, -0.6), 20, 250, 0),
    ("HRV RMSSD", 45, 12, (0.1, 0.3, -0.5, 0.6), 1, 500, 1),
    ("Heart rate", 72, 6, (0.4, 0.0, 0.3, -0.4), 20, 250, 1),
    ("Respiratory rate", 15, 1.5, (0.0, 0.0, 0.3, -0.3), 2, 80, 1),
    ("Blood oxygen saturation", 96, 1.2, (0.0, 0.1, 0.0, 0.3), 50, 100, 1),
    ("Nightly skin temperature", 33.5, 0.5, (0.0, 0.0, 0.3, 0.0), 20, 42, 2),
    ("Mental stress", 40, 15, (-0.2, -0.3, 0.9, 0.0), 0, 100, 0),
    ("Mood", 3.5, 0.8, (0.3, 0.3, -0.6, 0.0), 1, 5, 0),
    ("Readiness", 6.5, 1.5, (0.1, 0.4, -0.5, 0.3), 0, 10, 0),
    ("Mental fatigue", 2.5, 1.0, (-0.1, -0.4, 0.6, 0.0), 0, 5, 0),
    ("Time at home", 900, 150, (-0.5, 0.0, 0.1, 0.0), 0, 1440, 0),
]


def generate(n_subjects: int, n_days: int, n_metrics: int = len(METRICS), *, seed: int = 7,
             missing_days: float = 0.05, missing_cells: float = 0.15, anomalies: float = 0.005,
             start: date = date(2021, 1, 1)) -> pd.DataFrame:
    """The population as a DataFrame (participant_id, date, one column per metric); see module doc."""
    if not 1 <= n_metrics <= len(METRICS):
        raise ValueError(f"--metrics must be 1..{len(METRICS)}")
    rng = np.random.default_rng(seed)
    specs = METRICS[:n_metrics]
    mean = np.array([s[1] for s in specs])
    sd = np.array([s[2] for s in specs])
    load = np.array([s[3] for s in specs])                    # (M, 4)
    lo = np.array([s[4] for s in specs])
    hi = np.array([s[5] for s in specs])
    dec = [s[6] for s in specs]
    days = pd.date_range(start, periods=n_days, freq="D").date
    frames = []
    phi = 0.6
    for s in range(n_subjects):
        eps = rng.standard_normal((n_days, 4)) * np.sqrt(1 - phi ** 2)
        f = np.empty((n_days, 4))
        f[0] = rng.standard_normal(4)
        for t in range(1, n_days):
            f[t] = phi * f[t - 1] + eps[t]
        subj_load = load + rng.normal(0, 0.15, load.shape)
        subj_mean = mean + rng.normal(0, 0.5, len(specs)) * sd
        noise = rng.standard_normal((n_days, len(specs))) * 0.5
        z = f @ subj_load.T + noise                            # (D, M), roughly unit scale
        values = subj_mean + sd * z
        anom = rng.random(values.shape) < anomalies
        values[anom] += np.sign(rng.standard_normal(anom.sum())) * rng.uniform(3, 4, anom.sum()) * np.broadcast_to(sd, values.shape)[anom]
        values = np.clip(values, lo, hi)
        values[rng.random(values.shape) < missing_cells] = np.nan
        keep = rng.random(n_days) >= missing_days
        df = pd.DataFrame(values[keep], columns=[s[0] for s in specs])
        for col, d in zip(df.columns, dec):
            df[col] = df[col].round(d)
        df.insert(0, "date", [d.isoformat() for d in days[keep]])
        df.insert(0, "participant_id", f"sim{s:05d}")
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--subjects", type=int, default=100)
    ap.add_argument("--days", type=int, default=365)
    ap.add_argument("--metrics", type=int, default=len(METRICS))
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    t0 = time.perf_counter()
    df = generate(args.subjects, args.days, args.metrics, seed=args.seed)
    df.to_csv(args.out, index=False)
    print(f"wrote {args.out}: {len(df):,} rows x {df.shape[1] - 2} metrics in {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
