"""Consistency checks of the prior knowledge-graph seeds (DESIGN.md §9).

seeds/prior_edges.csv            node_a,node_b,w_prior,confidence,relationship  (judged related)
seeds/prior_unrelated_pairs.csv  node_a,node_b,reason                           (judged unrelated, data metrics)

Every unordered pair of the 56 metrics with data must be judged exactly once (edge or unrelated);
every catalog node must have at least one edge; ids must be catalog ids (seeds/metric_catalog.csv when
present, else the 103 ids listed here); w_prior follows the paper's scale [0.1, 1.0]. A few physiology
anchors guard against an accidentally scrambled file.
"""

from __future__ import annotations

import csv
import itertools
from collections import Counter
from pathlib import Path

import pytest

SEEDS = Path(__file__).resolve().parents[1] / "seeds"
EDGES = SEEDS / "prior_edges.csv"
UNRELATED = SEEDS / "prior_unrelated_pairs.csv"
CATALOG = SEEDS / "metric_catalog.csv"

# The 56 metrics that carry data in at least one dataset (FORMATS.md §5 / the CONTRACT metric list).
DATA_METRICS = """
total_sleep_duration asleep_duration sleep_onset_latency wake_after_sleep_onset sleep_efficiency
light_sleep_duration deep_sleep_duration rem_sleep_duration bedtime_start_time bedtime_end_time
midpoint_of_sleep time_after_wakeup sleep_score steps_taken distance_traveled active_time
lightly_active_time moderately_active_time highly_active_time inactive_time resting_time
energy_expenditure exercise step_goal training_load mental_stress mental_fatigue mood
panas_positive_affect panas_negative_affect anxiety depression readiness resting_heart_rate heart_rate
hrv_rmssd blood_oxygen_saturation nightly_skin_temperature temperature_variation sleep_breathing_rate
vo2_max skin_conductance number_of_calls entropy_of_call_duration number_of_phone_unlock
duration_of_phone_unlock time_at_home radius_of_gyration maximum_distance_from_home
circadian_rhythm_patterns lifelog age gender bmi personality barometric_pressure
""".split()

# The 47 catalog metrics without data in the four datasets.
OTHER_METRICS = """
blood_pressure pulse_wave_velocity cardiac_output peripheral_blood_flow respiratory_rate oxygen_uptake
carbon_dioxide_exhalation_rate lung_volume breathing_rhythm muscle_activity blood_glucose_levels
lactate_levels basal_metabolic_rate core_body_temperature brain_activity sweat_rate
electrolyte_concentration skin_hydration_levels ph_of_sweat sleep_stages sleep_apnea_events
arousals_per_night breathing_irregularities snoring_patterns activity_level running_dynamics
balance_and_stability joint_movement_and_flexibility mental_workload engagement cognitive_load
memory_performance decision_making_speed ambient_temperature humidity uv_radiation_exposure
air_quality noise_levels electromagnetic_field_exposure altitude gps_location travel_patterns
proximity_to_other_devices_or_people interaction_frequency_with_social_contacts
time_spent_on_specific_activities screen_interaction_patterns daily_routine_adherence
""".split()


def _read(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def edges() -> list[dict[str, str]]:
    return _read(EDGES)


@pytest.fixture(scope="module")
def unrelated() -> list[dict[str, str]]:
    return _read(UNRELATED)


@pytest.fixture(scope="module")
def catalog_ids() -> set[str]:
    if CATALOG.exists():
        return {r["metric_id"] for r in _read(CATALOG)}
    return set(DATA_METRICS) | set(OTHER_METRICS)


@pytest.fixture(scope="module")
def weight(edges):
    w = {(r["node_a"], r["node_b"]): float(r["w_prior"]) for r in edges}

    def get(a: str, b: str) -> float | None:
        return w.get((min(a, b), max(a, b)))

    return get


def test_id_lists_are_consistent(catalog_ids):
    assert len(DATA_METRICS) == 56 and len(set(DATA_METRICS)) == 56
    assert len(OTHER_METRICS) == 47 and not set(DATA_METRICS) & set(OTHER_METRICS)
    assert catalog_ids == set(DATA_METRICS) | set(OTHER_METRICS)


def test_headers():
    with EDGES.open(encoding="utf-8") as f:
        assert f.readline().strip() == "node_a,node_b,w_prior,confidence,relationship"
    with UNRELATED.open(encoding="utf-8") as f:
        assert f.readline().strip() == "node_a,node_b,reason"


@pytest.mark.parametrize("which", ["edges", "unrelated"])
def test_pairs_are_ordered_known_and_unique(which, edges, unrelated, catalog_ids):
    rows = edges if which == "edges" else unrelated
    pairs = [(r["node_a"], r["node_b"]) for r in rows]
    unknown = {n for p in pairs for n in p} - catalog_ids
    assert not unknown, f"ids not in the catalog: {sorted(unknown)}"
    assert all(a < b for a, b in pairs), [p for p in pairs if not p[0] < p[1]][:5]
    dup = [p for p, n in Counter(pairs).items() if n > 1]
    assert not dup, dup[:5]


def test_unrelated_pairs_are_data_metrics_with_reason(unrelated):
    data = set(DATA_METRICS)
    assert all(r["node_a"] in data and r["node_b"] in data for r in unrelated)
    assert all(r["reason"].strip() for r in unrelated)


def test_every_data_pair_judged_exactly_once(edges, unrelated):
    expected = set(itertools.combinations(sorted(DATA_METRICS), 2))
    assert len(expected) == 1540
    related = {(r["node_a"], r["node_b"]) for r in edges} & expected
    not_related = {(r["node_a"], r["node_b"]) for r in unrelated}
    assert not related & not_related, sorted(related & not_related)[:5]
    missing = expected - related - not_related
    assert not missing, f"{len(missing)} data pairs not judged, e.g. {sorted(missing)[:5]}"
    assert len(related) + len(not_related) == 1540


def test_weights_confidence_and_text(edges):
    for r in edges:
        w = float(r["w_prior"])
        assert 0.1 <= w <= 1.0, r
        assert len(r["w_prior"].split(".")[-1]) <= 2, r  # one decimal, two for nuance
        assert r["confidence"] in {"high", "medium", "low"}, r
        assert len(r["relationship"].strip()) >= 30, r


def test_descriptions_are_pair_specific(edges):
    texts = Counter(r["relationship"].strip() for r in edges)
    repeated = {t: n for t, n in texts.items() if n > 1}
    assert not repeated, list(repeated.items())[:3]


def test_every_catalog_node_has_an_edge(edges, catalog_ids):
    degree = Counter(n for r in edges for n in (r["node_a"], r["node_b"]))
    isolated = sorted(n for n in catalog_ids if degree[n] == 0)
    assert not isolated, isolated


def test_strength_matches_confidence_roughly(edges):
    # strong edges rest on strong evidence; a 'high' confidence 0.1 edge would be a contradiction
    for r in edges:
        w = float(r["w_prior"])
        if w >= 0.7:
            assert r["confidence"] != "low", r
        if w <= 0.2:
            assert r["confidence"] != "high", r


@pytest.mark.parametrize(
    "a,b,lo",
    [
        ("asleep_duration", "total_sleep_duration", 0.7),
        ("steps_taken", "distance_traveled", 0.7),
        ("active_time", "energy_expenditure", 0.7),
        ("resting_heart_rate", "hrv_rmssd", 0.6),
        ("nightly_skin_temperature", "temperature_variation", 0.7),
        ("wake_after_sleep_onset", "sleep_efficiency", 0.7),
        ("number_of_phone_unlock", "duration_of_phone_unlock", 0.6),
        ("radius_of_gyration", "maximum_distance_from_home", 0.6),
        ("anxiety", "depression", 0.6),
        ("mental_fatigue", "readiness", 0.6),
        ("highly_active_time", "training_load", 0.6),
        ("deep_sleep_duration", "age", 0.5),
        ("altitude", "barometric_pressure", 0.7),
        ("sleep_apnea_events", "blood_oxygen_saturation", 0.6),
        ("oxygen_uptake", "vo2_max", 0.7),
    ],
)
def test_strong_anchors(weight, a, b, lo):
    w = weight(a, b)
    assert w is not None and w >= lo, (a, b, w)


@pytest.mark.parametrize(
    "a,b,lo,hi",
    [
        ("mental_stress", "sleep_efficiency", 0.3, 0.6),
        ("deep_sleep_duration", "highly_active_time", 0.3, 0.6),
        ("mental_stress", "hrv_rmssd", 0.3, 0.6),
        ("depression", "time_at_home", 0.3, 0.6),
    ],
)
def test_moderate_anchors(weight, a, b, lo, hi):
    w = weight(a, b)
    assert w is not None and lo <= w <= hi, (a, b, w)


@pytest.mark.parametrize(
    "a,b",
    [
        ("gender", "barometric_pressure"),
        ("age", "gender"),
        ("step_goal", "blood_oxygen_saturation"),
        ("entropy_of_call_duration", "vo2_max"),
        ("number_of_calls", "nightly_skin_temperature"),
    ],
)
def test_unrelated_anchors(unrelated, weight, a, b):
    pair = (min(a, b), max(a, b))
    assert weight(a, b) is None
    assert pair in {(r["node_a"], r["node_b"]) for r in unrelated}
