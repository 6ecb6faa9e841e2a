"""The metric catalog: the knowledge-graph node list (DESIGN.md §9) as Python objects.

Source, in order of preference:

* the warehouse's ``nodes`` table (``models/marts/nodes.sql``) when a DuckDB connection is given
  and the table exists — so a regenerated graph (``wag graph build`` + ``dbt build``) is what the
  parser sees;
* else the shipped seed ``seeds/metric_catalog.csv`` of the project directory
  (:func:`wag_cli.paths.project_dir`), read once per file version (cached).

Both sources have the seed's columns; ``aliases`` is a ``'|'``-separated string there and a tuple
of stripped, non-empty strings here. A missing or unreadable seed raises :class:`WagError`.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .errors import WagError
from .paths import project_dir

#: Seed path relative to the project directory.
CATALOG_SEED = Path("seeds") / "metric_catalog.csv"

_FIELDS = (
    "metric_id",
    "name",
    "category",
    "unit",
    "data_kind",
    "description",
    "normal_range",
    "recommendations",
    "aliases",
)


@dataclass(frozen=True)
class Metric:
    """One catalog metric (a knowledge-graph node).

    ``metric_id`` is the snake_case of the paper's metric name (e.g. ``hrv_rmssd``); ``unit`` is the
    unit every warehouse value of the metric is expressed in; ``data_kind`` is ``numeric`` or ``text``;
    ``aliases`` are the words people use for it (used by the query parser, DESIGN.md §8);
    ``origin`` is ``initial``/``dataset``/``both`` and ``data_sources`` names the raw fields per
    dataset (empty for a metric no dataset carries).
    """

    metric_id: str
    name: str
    category: str
    unit: str
    data_kind: str
    description: str
    normal_range: str
    recommendations: str
    aliases: tuple[str, ...] = ()
    origin: str = ""
    data_sources: str = ""


def split_aliases(value: object) -> tuple[str, ...]:
    """``'a|b| c'`` -> ``('a', 'b', 'c')``; ``None``/empty -> ``()``. Duplicates removed, order kept."""
    if value is None:
        return ()
    seen: dict[str, None] = {}
    for part in str(value).split("|"):
        part = part.strip()
        if part and part.lower() not in {p.lower() for p in seen}:
            seen[part] = None
    return tuple(seen)


def _metric_from_row(row: dict) -> Metric:
    values = {f: row.get(f) for f in _FIELDS}
    return Metric(
        metric_id=str(values["metric_id"]).strip(),
        name=str(values["name"] or "").strip(),
        category=str(values["category"] or "").strip(),
        unit=str(values["unit"] or "").strip(),
        data_kind=str(values["data_kind"] or "").strip(),
        description=str(values["description"] or "").strip(),
        normal_range=str(values["normal_range"] or "").strip(),
        recommendations=str(values["recommendations"] or "").strip(),
        aliases=split_aliases(values["aliases"]),
        origin=str(row.get("origin") or "").strip(),
        data_sources=str(row.get("data_sources") or "").strip(),
    )


@lru_cache(maxsize=8)
def _load_csv(path: str, mtime_ns: int) -> tuple[Metric, ...]:
    """Parse the seed file once per (path, modification time)."""
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        missing = {"metric_id", "name", "aliases"} - set(reader.fieldnames or ())
        if missing:
            raise WagError(f"metric catalog {path} lacks column(s) {', '.join(sorted(missing))}")
        return tuple(_metric_from_row(r) for r in reader if (r.get("metric_id") or "").strip())


def _nodes_table_exists(con) -> bool:
    try:
        row = con.execute(
            "select count(*) from duckdb_tables() where table_name = 'nodes' "
            "union all select count(*) from duckdb_views() where view_name = 'nodes'"
        ).fetchall()
    except Exception:  # not a DuckDB connection, or a closed one
        return False
    return sum(r[0] for r in row) > 0


def load_catalog(con=None) -> dict[str, Metric]:
    """Return ``{metric_id: Metric}`` in catalog order.

    ``con``: an optional DuckDB connection; its ``nodes`` table is used when present, else the
    seed CSV. Raises :class:`WagError` when the seed is needed but missing.
    """
    if con is not None and _nodes_table_exists(con):
        cur = con.execute("select * from nodes order by metric_id")
        cols = [d[0] for d in cur.description]
        rows = [dict(zip(cols, r)) for r in cur.fetchall()]
        if rows:
            return {m.metric_id: m for m in map(_metric_from_row, rows)}
    path = project_dir() / CATALOG_SEED
    try:
        mtime = path.stat().st_mtime_ns
    except OSError:
        raise WagError(f"metric catalog not found at {path}") from None
    return {m.metric_id: m for m in _load_csv(str(path), mtime)}
