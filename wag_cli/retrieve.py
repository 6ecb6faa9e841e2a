"""Retrieval of the query-conditioned subgraph (DESIGN.md §7-§8, paper Algorithm 2).

The ranking itself is the warehouse's ``wag_retrieve`` table macro (SQL, created by ``dbt build``);
this module calls it, then fetches in one set-based query the subject's data for every node of the
subgraph (``sql/node_window.sql``). No weight is recomputed in Python.

Methods (DESIGN.md §8): ``base`` = the primary metrics' data only; ``rag`` = primary nodes'
knowledge + data; ``wag`` = the full subgraph (primary nodes and their selected neighbours).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from datetime import date
from importlib import resources

import duckdb

from .catalog import Metric
from .db import fetch_dicts
from .errors import UsageError
from .settings import RetrievalSettings

METHODS = ("wag", "rag", "base")
#: Weights that can rank neighbours: w_final (§8) and the ablations of experiments G and L (§6-§7).
RANK_BY = ("w_final", "w_global", "w_local", "p_prior", "w_pop", "w_ind")

#: Context metrics shown beside a primary node without being graph neighbours: time in bed is
#: read together with time asleep (the 7-9 h guideline is about sleep, not time in bed).
COMPANIONS = {"total_sleep_duration": "asleep_duration"}


def _sql(name: str) -> str:
    return resources.files("wag_cli").joinpath("sql", name).read_text(encoding="utf-8")


@dataclass
class NodeData:
    """The subject's data for one node around the reference day (catalog units).

    ``daily`` is a list of ``{"day": date, "value": float|None, "value_text": str|None, "z": float|None}``
    for the days of the window with data; ``usual_*`` are over every day <= the reference day;
    ``baseline_*`` over the days before the window (what the window is compared with; NULL for
    window 'all' or when there is no earlier day).
    """

    n_history_days: int = 0
    usual_mean: float | None = None
    usual_sd: float | None = None
    last_day: date | None = None        # last day with data up to the reference day
    baseline_mean: float | None = None
    baseline_sd: float | None = None
    n_baseline_days: int = 0
    n_window_days: int = 0
    window_mean: float | None = None
    window_dev_sd: float | None = None  # (window mean - usual mean) / usual sd, from wag_node_window
    baseline_dev_sd: float | None = None  # (window mean - baseline mean) / baseline sd (days before the window)
    window_min: float | None = None
    window_max: float | None = None
    window_min_day: date | None = None   # day of the window's lowest value (earliest of ties)
    window_max_day: date | None = None
    zeta: float | None = None
    daily: list[dict] = field(default_factory=list)
    # days with data / the days expected at the subject's own cadence (wag_node_window); below
    # var min_window_coverage the window mean, min, max and zeta are NULL (too few days to summarise)
    window_coverage: float | None = None


@dataclass
class Node:
    """A node of the retrieved subgraph: knowledge (catalog), weights (edge_weights) and data."""

    metric_id: str
    name: str
    unit: str
    category: str
    data_kind: str
    role: str                      # 'primary' | 'neighbour'
    primary_node: str              # the primary node it was retrieved for (itself for primaries)
    rank: int
    reason: str
    description: str = ""
    normal_range: str = ""
    recommendations: str = ""
    w_prior: float | None = None
    w_global: float | None = None
    fallback: str | None = None
    w_local: float | None = None
    w_final: float | None = None
    r_s_signed: float | None = None
    n_s: int | None = None
    r_pop_signed: float | None = None
    n_pop: int | None = None
    n_pop_subjects: int | None = None
    r_s_reason: str | None = None       # why r_s is NULL (n_below_min, zero_variance_x, ...)
    r_pop_reason: str | None = None
    pop_as_of_day: date | None = None   # the population correlations pool subject-days up to here (§6 snapshot)
    rank_by: str | None = None          # the weight column that ranked this neighbour
    rank_weight: float | None = None    # its value
    relationship: str | None = None
    measurement: str | None = None      # instrument/scale in this subject's dataset (metric_sources)
    data: NodeData = field(default_factory=NodeData)
    companion: "Node | None" = None     # e.g. asleep_duration beside total_sleep_duration


@dataclass
class Subgraph:
    """The retrieval result for one question: shape of DESIGN.md §8 step 4."""

    subject_id: str
    method: str
    reference_day: date
    window_days: int | None        # None = 'all'
    openness: float
    budget: int
    nodes: list[Node]
    rank_by: str = "w_final"
    as_of: bool = True

    @property
    def primaries(self) -> list[Node]:
        return [n for n in self.nodes if n.role == "primary"]

    @property
    def neighbours(self) -> list[Node]:
        return [n for n in self.nodes if n.role == "neighbour"]

    @property
    def population_as_of(self) -> date | None:
        """Last day of the pooled subject-days behind the population correlations: the last monthly
        snapshot <= the reference day (DESIGN.md §6 "As of"); None without as-of weights or neighbours."""
        return next((n.pop_as_of_day for n in self.neighbours if n.pop_as_of_day is not None), None)

    def to_json(self, *, include_knowledge: bool = True) -> dict:
        """JSON-serialisable dict (dates as ISO strings)."""

        def clean(obj):
            if isinstance(obj, dict):
                return {k: clean(v) for k, v in obj.items()}
            if isinstance(obj, list):
                return [clean(v) for v in obj]
            if isinstance(obj, date):
                return obj.isoformat()
            if isinstance(obj, float):
                return round(obj, 4)
            return obj

        nodes = []
        for n in self.nodes:
            d = asdict(n)
            if not include_knowledge:
                for k in ("description", "normal_range", "recommendations", "relationship"):
                    d.pop(k, None)
            nodes.append(d)
        return clean({
            "subject_id": self.subject_id,
            "method": self.method,
            "reference_day": self.reference_day,
            "window_days": self.window_days if self.window_days is not None else "all",
            "openness": self.openness,
            "budget": self.budget,
            "rank_by": self.rank_by,
            "weights_as_of": self.reference_day if self.as_of else "full history",
            "population_as_of": self.population_as_of,
            "nodes": nodes,
        })


def _node_data(d: dict) -> NodeData:
    return NodeData(
        n_history_days=int(d.get("n_history_days") or 0),
        usual_mean=d.get("usual_mean"),
        usual_sd=d.get("usual_sd"),
        last_day=d.get("last_day"),
        baseline_mean=d.get("baseline_mean"),
        baseline_sd=d.get("baseline_sd"),
        n_baseline_days=int(d.get("n_baseline_days") or 0),
        n_window_days=int(d.get("n_window_days") or 0),
        window_mean=d.get("window_mean"),
        window_dev_sd=d.get("window_dev_sd"),
        baseline_dev_sd=d.get("baseline_dev_sd"),
        window_min=d.get("window_min"),
        window_max=d.get("window_max"),
        window_min_day=d.get("window_min_day"),
        window_max_day=d.get("window_max_day"),
        zeta=d.get("zeta"),
        daily=list(d.get("daily") or []),
        window_coverage=d.get("window_coverage_vs_usual"),
    )


def retrieve_rows(
    con: duckdb.DuckDBPyConnection,
    *,
    subject_id: str,
    metrics: list[str],
    reference_day: date,
    window_days: int | None,
    eta: float,
    settings: RetrievalSettings,
) -> list[dict]:
    """The selected rows of the warehouse's ``wag_retrieve`` macro (``sql/retrieve.sql``: primary
    nodes and chosen neighbours with every weight column, the edge's relationship and confidence),
    ordered by primary node, rank and node id. ``eta`` is the openness the macro sees."""
    params = {
        "subject": subject_id,
        "metrics": list(metrics),
        "ref_day": reference_day,
        "window_days": window_days,
        "eta": eta,
        **settings.macro_params(),
    }
    return fetch_dicts(con, _sql("retrieve.sql"), params)


def retrieve(
    con: duckdb.DuckDBPyConnection,
    *,
    subject_id: str,
    metrics: list[str],
    reference_day: date,
    window_days: int | None,
    openness: float,
    method: str = "wag",
    catalog: dict[str, Metric],
    settings: RetrievalSettings | None = None,
    rank_by: str | None = None,
) -> Subgraph:
    """Retrieve the subgraph for ``metrics`` of ``subject_id`` (DESIGN.md §6-§8).

    ``window_days`` None means 'all' (no local weight). For ``base``/``rag`` the budget is 0, so
    only the primary nodes come back; ``base`` also drops their knowledge text. Global weights are
    as of ``reference_day`` (``settings.as_of``); ``settings`` defaults to the dbt vars and
    ``rank_by`` (shortcut for ``settings.rank_by``) picks the weight that ranks neighbours:
    'w_final' (§8) or an ablation of experiments G/L ('w_global', 'w_local', 'p_prior', 'w_pop',
    'w_ind'). Raises :class:`UsageError` for an unknown method, an unknown rank_by or an empty
    metric list.
    """
    settings = settings or RetrievalSettings.from_project()
    if rank_by is not None:
        settings = replace(settings, rank_by=rank_by)
    if settings.rank_by not in RANK_BY:
        raise UsageError(f"unknown rank_by {settings.rank_by!r}; choose one of {', '.join(RANK_BY)}")
    if method not in METHODS:
        raise UsageError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    if not metrics:
        raise UsageError("no metric to retrieve")
    eta = openness if method == "wag" else 0.0
    rows = retrieve_rows(con, subject_id=subject_id, metrics=metrics, reference_day=reference_day,
                         window_days=window_days, eta=eta, settings=settings)
    node_ids = list(dict.fromkeys(r["node_id"] for r in rows))
    companion_ids = [COMPANIONS[m] for m in metrics if m in COMPANIONS]
    wanted = list(dict.fromkeys(node_ids + companion_ids))
    data_rows = fetch_dicts(
        con,
        _sql("node_window.sql"),
        {"subject": subject_id, "metrics": wanted, "ref_day": reference_day, "window_days": window_days},
    )
    data_by_id = {d.pop("metric_id"): d for d in data_rows}
    dataset = subject_id.split(":", 1)[0]
    measurement = {r["metric_id"]: r["measurement"] for r in fetch_dicts(
        con, _sql("measurement.sql"), {"dataset": dataset, "metrics": wanted})}

    nodes: list[Node] = []
    for r in rows:
        m = catalog.get(r["node_id"])
        d = data_by_id.get(r["node_id"], {})
        node = Node(
            metric_id=r["node_id"],
            name=m.name if m else r["node_id"],
            unit=m.unit if m else "",
            category=m.category if m else "",
            data_kind=m.data_kind if m else "numeric",
            role=r["role"],
            primary_node=r["primary_node"],
            rank=int(r["rank"]),
            reason=r["reason"],
            description=(m.description if m and method != "base" else ""),
            normal_range=(m.normal_range if m and method != "base" else ""),
            recommendations=(m.recommendations if m and method != "base" else ""),
            w_prior=r["w_prior"],
            w_global=r["w_global"],
            fallback=r["fallback"],
            w_local=r["w_local"],
            w_final=r["w_final"],
            r_s_signed=r["r_s_signed"],
            n_s=r["n_s"],
            r_pop_signed=r["r_pop_signed"],
            n_pop=r["n_pop"],
            n_pop_subjects=r["n_pop_subjects"],
            r_s_reason=r["r_s_reason"],
            r_pop_reason=r["r_pop_reason"],
            pop_as_of_day=r["pop_as_of_day"],
            rank_by=r["rank_by"] if r["role"] == "neighbour" else None,
            rank_weight=r["rank_weight"],
            relationship=r["relationship"],
            measurement=measurement.get(r["node_id"]),
            data=_node_data(d),
        )
        comp = COMPANIONS.get(node.metric_id) if node.role == "primary" else None
        if comp and comp in data_by_id and data_by_id[comp].get("n_history_days"):
            cm = catalog.get(comp)
            node.companion = Node(
                metric_id=comp, name=cm.name if cm else comp, unit=cm.unit if cm else "",
                category=cm.category if cm else "", data_kind="numeric", role="context",
                primary_node=node.metric_id, rank=0, reason=f"shown with {node.metric_id}",
                measurement=measurement.get(comp), data=_node_data(data_by_id[comp]),
            )
        nodes.append(node)
    budget = int(rows[0]["budget"]) if rows else 0    # B = floor(eta kappa), from wag_retrieve
    return Subgraph(
        subject_id=subject_id,
        method=method,
        reference_day=reference_day,
        window_days=window_days,
        openness=openness,
        budget=budget,
        nodes=nodes,
        rank_by=settings.rank_by,
        as_of=settings.as_of,
    )
