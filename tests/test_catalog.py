"""Checks of the metric catalog seed `seeds/metric_catalog.csv` (DESIGN.md §9), pure Python.

The expected node set is written out below from the paper's Tables 27-28 (merged per DESIGN.md §9)
plus this project's three dataset metrics; the file is read with the csv module only (no dbt).
"""

from __future__ import annotations

import csv
import functools
import json
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CATALOG = REPO / "seeds" / "metric_catalog.csv"
from conftest import SHARED_EVAL  # noqa: E402

DEV_QUESTIONS = SHARED_EVAL / "dev_questions.jsonl"

COLUMNS = [
    "metric_id", "name", "category", "unit", "data_kind", "description", "normal_range",
    "recommendations", "aliases", "physical_min", "physical_max", "origin", "data_sources", "ratio_scale",
]

EXPECTED = {
    "Physiological": [
        "heart_rate", "hrv_rmssd", "blood_pressure", "blood_oxygen_saturation", "pulse_wave_velocity",
        "cardiac_output", "peripheral_blood_flow", "respiratory_rate", "oxygen_uptake",
        "carbon_dioxide_exhalation_rate", "lung_volume", "breathing_rhythm", "muscle_activity",
        "blood_glucose_levels", "lactate_levels", "basal_metabolic_rate", "core_body_temperature",
        "brain_activity", "nightly_skin_temperature", "sweat_rate", "electrolyte_concentration",
        "skin_hydration_levels", "skin_conductance", "ph_of_sweat", "resting_heart_rate",
        "temperature_variation", "vo2_max",
    ],
    "Sleep": [
        "sleep_stages", "sleep_apnea_events", "total_sleep_duration", "sleep_onset_latency",
        "wake_after_sleep_onset", "sleep_efficiency", "arousals_per_night", "breathing_irregularities",
        "snoring_patterns", "circadian_rhythm_patterns", "asleep_duration", "light_sleep_duration",
        "deep_sleep_duration", "rem_sleep_duration", "bedtime_start_time", "bedtime_end_time",
        "midpoint_of_sleep", "time_after_wakeup", "sleep_breathing_rate", "sleep_score",
    ],
    "Activity": [
        "steps_taken", "distance_traveled", "active_time", "energy_expenditure", "activity_level",
        "running_dynamics", "balance_and_stability", "joint_movement_and_flexibility", "resting_time",
        "inactive_time", "lightly_active_time", "moderately_active_time", "highly_active_time", "exercise",
        "step_goal", "training_load",
    ],
    "Mental": [
        "mental_stress", "mental_fatigue", "mental_workload", "engagement", "cognitive_load",
        "memory_performance", "decision_making_speed", "mood", "panas_positive_affect",
        "panas_negative_affect", "anxiety", "depression", "readiness",
    ],
    "Environmental": [
        "ambient_temperature", "humidity", "barometric_pressure", "uv_radiation_exposure", "air_quality",
        "noise_levels", "electromagnetic_field_exposure", "altitude",
    ],
    "Lifestyle": [
        "gps_location", "travel_patterns", "proximity_to_other_devices_or_people",
        "interaction_frequency_with_social_contacts", "time_spent_on_specific_activities",
        "screen_interaction_patterns", "daily_routine_adherence", "lifelog", "number_of_calls",
        "entropy_of_call_duration", "number_of_phone_unlock", "duration_of_phone_unlock", "time_at_home",
        "radius_of_gyration", "maximum_distance_from_home",
    ],
    "Demographic": ["age", "gender", "bmi", "personality"],
}
EXPECTED_IDS = {m for ids in EXPECTED.values() for m in ids}

# Nodes into which a dataset metric (Table 28) was merged (DESIGN.md §9, Algorithm 1).
MERGED = {
    "hrv_rmssd", "nightly_skin_temperature", "blood_oxygen_saturation", "skin_conductance",
    "total_sleep_duration", "sleep_onset_latency", "wake_after_sleep_onset", "sleep_efficiency",
    "circadian_rhythm_patterns", "steps_taken", "distance_traveled", "active_time", "energy_expenditure",
    "mental_stress", "mental_fatigue", "mood", "barometric_pressure",
}
OURS = {"sleep_score", "readiness", "training_load"}
TEXT_METRICS = {"exercise", "lifelog", "gender", "personality", "gps_location", "sleep_stages"}


@pytest.fixture(scope="module")
def rows() -> list[dict[str, str]]:
    with CATALOG.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        assert reader.fieldnames == COLUMNS
        return list(reader)


@pytest.fixture(scope="module")
def by_id(rows) -> dict[str, dict[str, str]]:
    return {r["metric_id"]: r for r in rows}


def _aliases(row: dict[str, str]) -> list[str]:
    return [a for a in row["aliases"].split("|") if a != ""] if row["aliases"] else []


def _bound(text: str) -> float | None:
    return None if text == "" else float(text)


def test_exactly_the_expected_nodes(rows):
    ids = [r["metric_id"] for r in rows]
    assert len(EXPECTED_IDS) == 103
    assert len(ids) == len(set(ids)), "duplicate metric_id"
    assert set(ids) == EXPECTED_IDS, (set(ids) - EXPECTED_IDS, EXPECTED_IDS - set(ids))


def test_categories(by_id):
    for category, ids in EXPECTED.items():
        for metric_id in ids:
            assert by_id[metric_id]["category"] == category, metric_id


def test_ids_are_snake_case(rows):
    for r in rows:
        assert re.fullmatch(r"[a-z][a-z0-9]*(_[a-z0-9]+)*", r["metric_id"]), r["metric_id"]


def test_origin_matches_the_paper_tables(by_id):
    # Table 27 has 65 initial metrics, Table 28 has 52 dataset metrics; 17 are merged.
    origin = {m: r["origin"] for m, r in by_id.items()}
    assert set(origin.values()) <= {"initial", "dataset", "both"}
    assert {m for m, o in origin.items() if o == "both"} == MERGED
    assert sum(o in ("initial", "both") for o in origin.values()) == 65
    assert sum(o in ("dataset", "both") for m, o in origin.items() if m not in OURS) == 52
    assert all(origin[m] == "dataset" for m in OURS)


def test_required_text_fields(rows):
    for r in rows:
        for col in ("name", "category", "unit", "data_kind", "description", "normal_range", "recommendations"):
            assert r[col].strip() == r[col] and r[col] != "", (r["metric_id"], col)
        assert r["data_kind"] in ("numeric", "text"), r["metric_id"]


def test_data_kind(by_id):
    assert {m for m, r in by_id.items() if r["data_kind"] == "text"} == TEXT_METRICS
    # Numeric despite text-like raw forms in some datasets (CONTRACT: mood 1-5, age, bmi).
    for m in ("mood", "age", "bmi", "mental_stress", "readiness"):
        assert by_id[m]["data_kind"] == "numeric", m


def test_text_metrics_have_no_bounds(rows):
    for r in rows:
        if r["data_kind"] == "text":
            assert r["physical_min"] == "" and r["physical_max"] == "", r["metric_id"]
            assert r["unit"] == "text", r["metric_id"]


def test_bounds_are_ordered(rows):
    for r in rows:
        lo, hi = _bound(r["physical_min"]), _bound(r["physical_max"])
        if lo is not None and hi is not None:
            assert lo < hi, r["metric_id"]


def test_bounds_of_key_metrics(by_id):
    # Hard bounds named in the project brief / CONTRACT.md (catalog units).
    expected = {
        "sleep_efficiency": (0, 100), "steps_taken": (0, 100000), "resting_heart_rate": (20, 250),
        "total_sleep_duration": (0, 1440), "bedtime_start_time": (-1440, 1440),
        "barometric_pressure": (260, 1260), "temperature_variation": (-10, 10),
        "blood_oxygen_saturation": (50, 100), "mental_stress": (0, 100), "readiness": (0, 10),
        "circadian_rhythm_patterns": (0, 1),
    }
    for m, (lo, hi) in expected.items():
        assert (_bound(by_id[m]["physical_min"]), _bound(by_id[m]["physical_max"])) == (lo, hi), m
    # Every duration in minutes fits in one day.
    for m, r in by_id.items():
        if r["unit"] == "minutes" and r["physical_max"] != "":
            assert float(r["physical_max"]) <= 1440, m


def test_units_of_metrics_with_data(by_id):
    for m, r in by_id.items():
        if r["data_kind"] == "numeric" and r["data_sources"]:
            assert r["unit"] not in ("", "text"), m
    expected = {
        "total_sleep_duration": "minutes", "asleep_duration": "minutes", "deep_sleep_duration": "minutes",
        "sleep_efficiency": "%", "blood_oxygen_saturation": "%", "resting_heart_rate": "bpm",
        "heart_rate": "bpm", "hrv_rmssd": "ms", "energy_expenditure": "kcal", "distance_traveled": "m",
        "steps_taken": "steps", "nightly_skin_temperature": "°C", "temperature_variation": "°C",
        "barometric_pressure": "hPa", "mental_stress": "score", "mood": "score", "duration_of_phone_unlock": "minutes",
        "radius_of_gyration": "m", "maximum_distance_from_home": "m", "skin_conductance": "µS",
    }
    for m, unit in expected.items():
        assert by_id[m]["unit"] == unit, m


def test_data_sources_format(rows):
    for r in rows:
        if not r["data_sources"]:
            continue
        parts = r["data_sources"].split("; ")
        assert [p.split(": ", 1)[0] for p in parts] == ["pmdata", "lifesnaps", "globem", "ifh_affect"], r["metric_id"]
        assert any(p.split(": ", 1)[1] != "-" for p in parts), r["metric_id"]


def test_aliases_are_clean(rows):
    for r in rows:
        aliases = _aliases(r)
        assert aliases, f"{r['metric_id']} has no aliases"
        for a in aliases:
            assert a == a.lower() and a == a.strip() and "  " not in a, (r["metric_id"], a)
        assert len(aliases) == len(set(aliases)), r["metric_id"]


def test_aliases_unique_and_not_colliding(rows):
    owner: dict[str, str] = {}
    reserved: dict[str, str] = {}
    for r in rows:
        for key in (r["metric_id"], r["metric_id"].replace("_", " "), r["name"].lower()):
            reserved[key] = r["metric_id"]
    for r in rows:
        for a in _aliases(r):
            assert a not in owner, f"alias {a!r} of {r['metric_id']} also belongs to {owner[a]}"
            owner[a] = r["metric_id"]
            other = reserved.get(a)
            assert other in (None, r["metric_id"]), f"alias {a!r} of {r['metric_id']} is the id/name of {other}"


def _dev_questions() -> list[dict]:
    if not DEV_QUESTIONS.is_file():
        pytest.skip(f"labelled questions not found at {DEV_QUESTIONS} (expected ../shared/eval beside the repo)")
    with DEV_QUESTIONS.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def test_eval_metrics_are_in_the_catalog(by_id):
    for q in _dev_questions():
        for m in q["metrics"]:
            assert m in by_id, (q["q"], m)


@functools.lru_cache(maxsize=4)
def _phrase_patterns(entries: tuple[tuple[str, str, str, str], ...]) -> list[tuple[str, bool, re.Pattern]]:
    """One compiled word-bounded pattern per (metric, phrase)."""
    out = []
    for metric_id, name, aliases, data_sources in entries:
        phrases = {name.lower(), metric_id.replace("_", " "), *[a for a in aliases.split("|") if a]}
        for p in sorted(phrases):
            out.append((metric_id, bool(data_sources), re.compile(r"(?<![a-z0-9])" + re.escape(p) + r"(?![a-z0-9])")))
    return out


def _reference_match(question: str, rows: list[dict[str, str]]) -> set[str]:
    """A deliberately simple phrase matcher, only to check that the aliases suffice.

    Phrases = lower-cased name, id with spaces, aliases; word-bounded matches; a match inside a
    longer match of another metric is dropped. Metrics that carry data (non-empty data_sources)
    are matched first; a data-less metric only where its phrase overlaps no data-carrying match
    (so "higher activity level" resolves to active_time, which has data, not activity_level).
    """
    text = question.lower().replace("\u2019", "'")
    patterns = _phrase_patterns(tuple((r["metric_id"], r["name"], r["aliases"], r["data_sources"]) for r in rows))

    def occurrences(with_data: bool):
        found = []
        for metric_id, has_data, pattern in patterns:
            if has_data != with_data:
                continue
            for mm in pattern.finditer(text):
                found.append((mm.start(), mm.end(), metric_id))
        return [
            o for o in found
            if not any(x[2] != o[2] and x[0] <= o[0] and o[1] <= x[1] and x[1] - x[0] > o[1] - o[0] for x in found)
        ]

    first = occurrences(True)
    second = [o for o in occurrences(False) if not any(o[0] < f[1] and f[0] < o[1] for f in first)]
    return {o[2] for o in first + second}


def test_aliases_resolve_the_labelled_questions(rows):
    misses = []
    for q in _dev_questions():
        got = _reference_match(q["q"], rows)
        if not set(q["metrics"]) <= got:
            misses.append((q["q"], sorted(set(q["metrics"]) - got)))
    assert not misses, misses


@pytest.mark.parametrize(
    "question, metric",
    [
        ("What was my resting pulse last week?", "resting_heart_rate"),
        ("How many very active minutes did I get?", "highly_active_time"),
        ("How many calories burned yesterday?", "energy_expenditure"),
        ("Did I get enough slow wave sleep?", "deep_sleep_duration"),
        ("How often did I wake up at night?", "wake_after_sleep_onset"),
        ("What time did I go to bed on average?", "bedtime_start_time"),
        ("What is my SpO2?", "blood_oxygen_saturation"),
        ("How much screen time did I have?", "duration_of_phone_unlock"),
        ("Was I more anxious this month?", "anxiety"),
        ("How is my cardio fitness?", "vo2_max"),
    ],
)
def test_aliases_cover_common_phrasings(rows, question, metric):
    assert metric in _reference_match(question, rows)


def test_ratio_scale_marks_what_has_no_cv(by_id):
    """issue 9 item 7: a deviation around zero, a clock time or a text metric has no CV."""
    assert {r["ratio_scale"] for r in by_id.values()} == {"true", "false"}
    for m in ("temperature_variation", "bedtime_start_time", "bedtime_end_time", *TEXT_METRICS):
        assert by_id[m]["ratio_scale"] == "false", m
    for m in ("steps_taken", "total_sleep_duration", "resting_heart_rate", "hrv_rmssd"):
        assert by_id[m]["ratio_scale"] == "true", m
