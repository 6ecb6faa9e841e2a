"""Wording helpers of answers (DESIGN.md §11): numbers, units, clock times, metric labels, strength
bands and guidance clauses. A leaf module: every part of an answer (offline text, verdicts, the model's
data block) formats through these, so one number prints one way everywhere.
Wording data lives in ``wag_cli/data/answer_text.toml``.
"""

from __future__ import annotations

import re
import tomllib
from functools import lru_cache
from importlib import resources

#: Catalog units of daily amounts that add up over days (a period total is meaningful).
ADDITIVE_UNITS = ("minutes", "steps", "kcal", "m", "calls", "unlocks")
#: Metrics in one of those units that are offsets or levels, not amounts (no total).
NOT_ADDITIVE = ("midpoint_of_sleep", "sleep_onset_latency")


@lru_cache(maxsize=1)
def answer_words() -> dict:
    """The wording data of answers (``wag_cli/data/answer_text.toml``): strength bands, reasons,
    instrument names, labels."""
    return tomllib.loads(resources.files("wag_cli").joinpath("data", "answer_text.toml").read_text(encoding="utf-8"))


def strength_word(rho: float | None) -> str | None:
    """'negligible' | 'weak' | 'moderate' | 'strong' for |rho| (bands in answer_text.toml); None for None."""
    if rho is None:
        return None
    for band in answer_words()["strength"]:
        if abs(rho) < band["below"]:
            return band["word"]
    return answer_words()["strength"][-1]["word"]


def reason_text(code: str, **names) -> str:
    """The sentence for a missing-correlation reason code (answer_text.toml ``[reasons]``)."""
    template = answer_words()["reasons"].get(code) or answer_words()["reasons"]["no_estimate"]
    return template.format(**names)


def guidance_for(text: str | None, measurement: str | None) -> str:
    """The clauses of a catalog guidance text that fit the subject's instrument.

    ``text`` is a catalog ``normal_range`` or ``recommendations``; clauses are separated by ';'. A
    clause naming an instrument of answer_text.toml ``[instruments]`` (PMSys, PSS-4, Fitbit, Oura, ...)
    is kept only when ``measurement`` (metric_sources, the subject's dataset) names the same
    instrument; other clauses are kept. Returns '' when nothing fits.
    """
    if not text:
        return ""
    names = answer_words()["instruments"]["names"]
    meas = (measurement or "").lower()
    kept = []
    for clause in (c.strip() for c in text.split(";")):
        if not clause:
            continue
        named = [n for n in names if re.search(rf"(?<![\w-]){re.escape(n.lower())}(?![\w-])", clause.lower())]
        if named and not any(re.search(rf"(?<![\w-]){re.escape(n.lower())}(?![\w-])", meas) for n in named):
            continue
        kept.append(clause)
    out = "; ".join(kept).strip()
    if out and not out.endswith("."):
        out += "."
    return out[0].upper() + out[1:] if out else ""


def label(node_id: str, name: str) -> str:
    """Answer label of a metric (answer_text.toml ``[labels]``, else its catalog name)."""
    return answer_words()["labels"].get(node_id, name)


def _lc(name: str) -> str:
    """Lower-case a name for use mid-sentence, keeping acronyms ("HRV RMSSD", "VO2 Max")."""
    words = name.split()
    return " ".join(w if (len(w) > 1 and w[1].isupper()) or any(ch.isdigit() for ch in w) else w.lower()
                    for w in words)


def is_clock_unit(unit: str) -> bool:
    """Bedtime metrics are minutes relative to local midnight of the wake-up day (catalog unit)."""
    return unit.startswith("minutes from")


def fmt(value: float | None, unit: str = "", display_unit: str | None = None) -> str:
    """Human formatting of a catalog value: 1 decimal below 100, none above; unit appended.

    Clock-time metrics (minutes from midnight of the wake-up day) print as HH:MM, with the calendar day
    when it is not the wake-up day, e.g. -30 -> "23:30 (previous day)".
    A duration in minutes of an hour or more prints as hours and minutes ("7 h 56 min"; DESIGN.md §11).
    ``display_unit`` 'hours' shows a minutes value in hours ("6.0 h"), as the question asked (callers
    keep a metric that is typically under an hour in minutes: :func:`display_unit_for`).
    """
    if value is None:
        return "n/a"
    if is_clock_unit(unit):
        m = int(round(value)) % 1440
        # minutes from midnight of the wake-up day: before it is the previous calendar day (a bedtime of
        # -528 is 15:12 the day before; a user review read "lowest 15:11 ... highest 14:32" as one day)
        day = " (previous day)" if round(value) < 0 else " (next day)" if round(value) >= 1440 else ""
        return f"{m // 60:02d}:{m % 60:02d}{day}"
    if display_unit == "hours" and unit == "minutes":
        return f"{value / 60:.1f} h"
    if unit == "minutes" and abs(value) >= 59.5:
        # durations over an hour as hours and minutes (DESIGN.md §11): "7 h 56 min", not "476 minutes"
        h, m = divmod(int(round(abs(value))), 60)
        return f"{'-' if value < 0 else ''}{h} h {m:02d} min"
    if abs(value) >= 100 or (value == int(value) and abs(value) < 1e15):
        text = f"{value:,.0f}"
    elif abs(value) >= 1 or value == 0:
        text = f"{value:.1f}"
    else:
        text = f"{value:.3g}"                      # 0-1 indices and small deviations keep 3 digits
    unit = re.sub(r"\s*\(.*?\)", "", unit)          # "index (0-1)" -> "index"
    if unit and unit not in ("score", "text", "count", "steps"):
        return f"{text} {unit}"
    if unit == "steps":
        return f"{text} steps"
    return text


def display_unit_for(display_unit: str | None, unit: str, typical: float | None) -> str | None:
    """The unit to show one metric in: the question's ('hours') unless the metric is in minutes and
    typically under an hour (wake after sleep onset: "21 minutes", not "0.3 h"; a user review), so
    that all of one metric's numbers share a unit."""
    if display_unit == "hours" and unit == "minutes" and typical is not None and abs(typical) < 60:
        return None
    return display_unit


def fmt_delta(value: float | None, unit: str = "", display_unit: str | None = None) -> str:
    """A signed difference or slope in the metric's unit ('+12 minutes', '-0.5 h'); clock units in min."""
    if value is None:
        return "n/a"
    sign = "+" if value > 0 else "-" if value < 0 else ""          # an exact 0 has no sign ("0", not "±0")
    if is_clock_unit(unit):
        return f"{sign}{abs(value):.0f} min"
    return sign + fmt(abs(value), unit, display_unit)


def measurement_note(node, dataset: str | None = None) -> str | None:
    """How ``node`` is measured in ``dataset``, in words for a person (answer_text.toml
    ``[person_notes]``); None when there is no such note. The analyst note of metric_sources
    (``node.measurement``) never reaches an answer (DESIGN.md §11)."""
    if dataset is None:
        return None
    entry = answer_words().get("person_notes", {}).get(f"{dataset}.{node.metric_id}")
    return entry["text"] if entry else None


def guidance_fits(node, dataset: str | None) -> bool:
    """False when the catalog's general range does not fit the dataset's instrument (person note
    ``no_guidance``: a sleep-only heart rate, a deviation-from-baseline temperature)."""
    entry = answer_words().get("person_notes", {}).get(f"{dataset}.{node.metric_id}") if dataset else None
    return not (entry and entry.get("no_guidance"))
