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

Modules: :mod:`~wag_cli.demo.simulate` (the latent process), :mod:`~wag_cli.demo.pmdata` and
:mod:`~wag_cli.demo.lifesnaps` (one writer per dataset layout), :mod:`~wag_cli.demo.common` (clock,
native formats, file writing); this module validates the arguments and writes the cohort
(:func:`write_demo_data`, which raises ``ValueError`` for arguments out of range).
"""

from __future__ import annotations

import shutil
from datetime import date, timedelta
from pathlib import Path

from .common import _csv_text, _write_text
from .lifesnaps import LIFESNAPS_DAILY_COLUMNS, lifesnaps_id, lifesnaps_rows
from .pmdata import pmdata_pid, write_pmdata_subject

__all__ = ["write_demo_data", "LIFESNAPS_DAILY_COLUMNS", "pmdata_pid", "lifesnaps_id"]


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
        info = write_pmdata_subject(pm_root, k, seed, days, start, files)
        subjects.append(info["subject_id"])
        details[info["subject_id"]] = info

    ls_file = out / "lifesnaps" / "rais_anonymized" / "csv_rais_anonymized" / "daily_fitbit_sema_df_unprocessed.csv"
    if n_lifesnaps > 0:
        all_rows: list[list[str]] = []
        for k in range(n_lifesnaps):
            rows, info = lifesnaps_rows(k, seed, days, start, len(all_rows))
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
