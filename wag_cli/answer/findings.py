"""The findings of an answer (DESIGN.md §11): computed in SQL (``sql/findings.sql``), worded here.

:func:`findings_for` runs one set-based query for every node of a retrieved subgraph and returns one
:class:`Finding` per node: the period's change against the usual level (the days before the period,
partial days left out), every unusual day (>= 2 SD), the partial days, and for a neighbour the verdict
of the exploratory rule — ``explains`` / ``opposite`` / ``moved`` / ``unchanged`` / ``no_data`` /
``same_construct`` / ``no_baseline`` (the SQL header defines each). Nothing is recomputed in Python.

:func:`effect_word` and :func:`direction_word` turn a standardised difference into the words every
part of an answer uses (Cohen's conventions: about the same < 0.2 <= slightly < 0.5 <= clearly).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from importlib import resources

from ..db import fetch_dicts
from ..retrieve import Subgraph

#: |d| below which a level is "about the same", below which a difference is "slight" (DESIGN.md §11)
SAME, SLIGHT = 0.2, 0.5
#: a neighbour's own |rho| from which its link with the asked metric is worth stating
OWN_LINK = 0.3


@dataclass
class Finding:
    """One node's finding (all numbers from ``sql/findings.sql``; units are the catalog's)."""

    metric_id: str
    primary_node: str
    role: str
    r: float | None = None              # own Spearman rho with the primary as of t (neighbours)
    n: int | None = None
    n_window_days: int = 0
    n_full_days: int | None = None      # days in the period that are not partial
    n_mean_days: int | None = None      # days period_mean is over (amounts: the full days)
    baseline_mean: float | None = None  # the usual level: days before the period
    baseline_sd: float | None = None
    n_baseline_days: int = 0
    period_mean: float | None = None    # the period's mean (amounts: over the non-partial days)
    d: float | None = None              # (period_mean - baseline_mean) / baseline_sd
    d_primary: float | None = None
    unusual_days: list[dict] = field(default_factory=list)   # [{day, value, z}], most unusual first
    partial_days: list[dict] = field(default_factory=list)   # [{day, value}]
    notable_days: list[dict] = field(default_factory=list)   # [{day, z}] with |z| >= 1.5
    finding: str | None = None          # neighbours only (see the module docstring)


def _sql(name: str) -> str:
    return resources.files("wag_cli").joinpath("sql", name).read_text(encoding="utf-8")


def findings_for(con, sg: Subgraph) -> dict[tuple[str, str], Finding]:
    """``{(primary_node, metric_id): Finding}`` for every primary and neighbour of ``sg`` (one query).

    The neighbours' own correlations are the subgraph's (``r_s_signed`` / ``n_s`` of wag_retrieve,
    as of the reference day); they count only with ``|r| >= 0.3``.
    """
    nodes = [{"metric_id": n.metric_id, "primary_node": n.primary_node, "role": n.role,
              "r": n.r_s_signed if n.role == "neighbour" else None,
              "n": n.n_s if n.role == "neighbour" else None}
             for n in sg.nodes if n.role in ("primary", "neighbour")]
    taken = {(x["primary_node"], x["metric_id"]) for x in nodes}
    # a primary's companion (time asleep beside time in bed) leads the sleep verdict: its finding too
    nodes += [{"metric_id": p.companion.metric_id, "primary_node": p.metric_id, "role": "companion", "r": None, "n": None}
              for p in sg.primaries if p.companion is not None and (p.metric_id, p.companion.metric_id) not in taken]
    if not nodes:
        return {}
    rows = fetch_dicts(con, _sql("findings.sql"), {"subject": sg.subject_id, "ref_day": sg.reference_day,
                                                    "window_days": sg.window_days, "nodes": nodes})
    out = {}
    for r in rows:
        r["unusual_days"] = [dict(x) for x in r.get("unusual_days") or []]
        r["partial_days"] = [dict(x) for x in r.get("partial_days") or []]
        r["notable_days"] = [dict(x) for x in r.get("notable_days") or []]
        out[(r["primary_node"], r["metric_id"])] = Finding(**r)
    return out


def effect_word(d: float | None) -> str:
    """'about the same as' | 'slightly above' | 'above' | 'slightly below' | 'below' (usual level)."""
    if d is None or abs(d) < SAME:
        return "about the same as"
    return f"{'slightly ' if abs(d) < SLIGHT else ''}{'above' if d > 0 else 'below'}"


def direction_word(d: float | None, up: str = "higher", down: str = "lower") -> str:
    """'higher' / 'lower' / 'about the same' for a standardised difference."""
    if d is None or abs(d) < SAME:
        return "about the same"
    return up if d > 0 else down


def to_rows(findings: dict[tuple[str, str], Finding]) -> list[dict]:
    """The findings as plain dicts (empty fields left out) for the analysis: the model's data block,
    ``--json`` and :func:`from_rows`."""
    return [{k: v for k, v in f.__dict__.items() if v not in (None, [], {})} for f in findings.values()]


def from_rows(rows: list[dict]) -> dict[tuple[str, str], Finding]:
    """The inverse of :func:`to_rows` (days as :class:`datetime.date`, also from ISO text)."""
    out = {}
    for r in rows:
        r = dict(r)
        for key in ("unusual_days", "partial_days", "notable_days"):
            r[key] = [{**x, "day": date.fromisoformat(x["day"]) if isinstance(x["day"], str) else x["day"]}
                      for x in r.get(key) or []]
        f = Finding(**r)
        out[(f.primary_node, f.metric_id)] = f
    return out
