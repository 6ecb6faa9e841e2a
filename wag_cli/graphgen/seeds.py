"""The graph seed format (DESIGN.md §9): read, write and compare seed folders.

A seed folder holds ``metric_catalog.csv``, ``prior_edges.csv`` and ``prior_unrelated_pairs.csv``
with the shipped seeds' columns (:data:`COLUMNS`, documented in seeds/_metric_catalog__seeds.yml
and seeds/_prior_edges__seeds.yml). Rows are plain ``dict``s of strings; pairs are stored with
``node_a < node_b``.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UsageError

COLUMNS = {
    "metric_catalog": ("metric_id", "name", "category", "unit", "data_kind", "description", "normal_range",
                       "recommendations", "aliases", "physical_min", "physical_max", "origin", "data_sources",
                       "ratio_scale"),
    "prior_edges": ("node_a", "node_b", "w_prior", "confidence", "relationship"),
    "prior_unrelated_pairs": ("node_a", "node_b", "reason"),
}
CATEGORIES = ("Physiological", "Sleep", "Activity", "Mental", "Environmental", "Lifestyle", "Demographic")


@dataclass
class GraphSeeds:
    """The three seed tables: ``nodes`` keyed by metric_id (catalog order kept), ``edges`` and
    ``unrelated`` keyed by the ordered pair ``(node_a, node_b)``."""

    nodes: dict[str, dict] = field(default_factory=dict)
    edges: dict[tuple[str, str], dict] = field(default_factory=dict)
    unrelated: dict[tuple[str, str], dict] = field(default_factory=dict)
    eol: dict[str, str] = field(default_factory=dict)   # line ending per table as read ("\r\n" or "\n")

    def copy(self) -> "GraphSeeds":
        return GraphSeeds({k: dict(v) for k, v in self.nodes.items()}, {k: dict(v) for k, v in self.edges.items()},
                          {k: dict(v) for k, v in self.unrelated.items()}, dict(self.eol))


def pair(a: str, b: str) -> tuple[str, str]:
    """The unordered pair as the seeds store it (node_a < node_b)."""
    return (a, b) if a < b else (b, a)


def _eol(path: Path) -> str:
    with open(path, "rb") as fh:
        return "\r\n" if b"\r\n" in fh.readline() else "\n"


def _read(path: Path, table: str) -> list[dict]:
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            missing = set(COLUMNS[table][:3]) - set(reader.fieldnames or ())
            if missing:
                raise UsageError(f"{path} lacks column(s) {', '.join(sorted(missing))}; is it a {table} seed?")
            return [{c: (r.get(c) or "") for c in COLUMNS[table]} for r in reader]
    except FileNotFoundError:
        raise UsageError(f"no {table}.csv in {path.parent}") from None


def read_seeds(folder: Path) -> GraphSeeds:
    """The seed folder ``folder`` (UsageError when a file or a key column is missing)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise UsageError(f"seed folder {folder} does not exist")
    g = GraphSeeds()
    for table in COLUMNS:
        if (folder / f"{table}.csv").exists():
            g.eol[table] = _eol(folder / f"{table}.csv")
    for r in _read(folder / "metric_catalog.csv", "metric_catalog"):
        g.nodes[r["metric_id"]] = r
    for r in _read(folder / "prior_edges.csv", "prior_edges"):
        g.edges[pair(r["node_a"], r["node_b"])] = {**r, "node_a": min(r["node_a"], r["node_b"]),
                                                   "node_b": max(r["node_a"], r["node_b"])}
    path = folder / "prior_unrelated_pairs.csv"
    if path.exists():
        for r in _read(path, "prior_unrelated_pairs"):
            g.unrelated[pair(r["node_a"], r["node_b"])] = r
    return g


def write_seeds(g: GraphSeeds, folder: Path) -> list[Path]:
    """Write the three CSVs into ``folder`` (created); edges and pairs sorted, line endings as read
    (so an unchanged graph is written byte for byte as the shipped seeds); returns the paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    tables = {"metric_catalog": list(g.nodes.values()),
              "prior_edges": [g.edges[k] for k in sorted(g.edges)],
              "prior_unrelated_pairs": [g.unrelated[k] for k in sorted(g.unrelated)]}
    for table, rows in tables.items():
        path = folder / f"{table}.csv"
        tmp = path.with_suffix(".csv.tmp")
        with open(tmp, "w", newline="", encoding="utf-8") as fh:
            w = csv.DictWriter(fh, fieldnames=COLUMNS[table], lineterminator=g.eol.get(table, "\n"))
            w.writeheader()
            for r in rows:
                w.writerow({c: "" if r.get(c) is None else r.get(c) for c in COLUMNS[table]})
        tmp.replace(path)
        out.append(path)
    return out


def diff_seeds(old: GraphSeeds, new: GraphSeeds) -> dict:
    """What changed from ``old`` to ``new``: ``{"nodes": {"added", "removed", "changed": {id: [fields]}},
    "edges": {"added", "removed", "changed": {"a|b": {"w_prior": [old, new], ...}}},
    "unrelated": {"added", "removed"}}`` (lists sorted)."""
    def changed_fields(a: dict, b: dict, cols) -> list[str]:
        return [c for c in cols if (a.get(c) or "") != (b.get(c) or "")]

    nodes_changed = {k: changed_fields(old.nodes[k], new.nodes[k], COLUMNS["metric_catalog"])
                     for k in sorted(set(old.nodes) & set(new.nodes))}
    edges_changed = {}
    for k in sorted(set(old.edges) & set(new.edges)):
        fields = changed_fields(old.edges[k], new.edges[k], ("w_prior", "confidence", "relationship"))
        if fields:
            edges_changed["|".join(k)] = {f: [old.edges[k].get(f), new.edges[k].get(f)] for f in fields}
    return {
        "nodes": {"added": sorted(set(new.nodes) - set(old.nodes)), "removed": sorted(set(old.nodes) - set(new.nodes)),
                  "changed": {k: v for k, v in nodes_changed.items() if v}},
        "edges": {"added": ["|".join(k) for k in sorted(set(new.edges) - set(old.edges))],
                  "removed": ["|".join(k) for k in sorted(set(old.edges) - set(new.edges))],
                  "changed": edges_changed},
        "unrelated": {"added": ["|".join(k) for k in sorted(set(new.unrelated) - set(old.unrelated))],
                      "removed": ["|".join(k) for k in sorted(set(old.unrelated) - set(new.unrelated))]},
    }
