"""`wag graph show`: a node, its prior edges and (for a subject) the weight columns (DESIGN.md §6, §9)."""

from __future__ import annotations

from importlib import resources

import duckdb

from .db import fetch_dicts
from .errors import UsageError


def _sql(name: str) -> str:
    return resources.files("wag_cli").joinpath("sql", name).read_text(encoding="utf-8")


def node_view(con: duckdb.DuckDBPyConnection, node: str, subject: str | None = None) -> dict:
    """{'node': nodes row, 'edges': [...], 'edge_weights': [...]}; UsageError for an unknown node/subject."""
    rows = fetch_dicts(con, "select * from nodes where metric_id = $node", {"node": node})
    if not rows:
        from .catalog import load_catalog
        from .match import lexical_match

        resolved = lexical_match(node, load_catalog(con))
        if resolved:
            node = resolved
            rows = fetch_dicts(con, "select * from nodes where metric_id = $node", {"node": node})
    if not rows:
        close = fetch_dicts(
            con,
            "select metric_id from nodes order by jaro_winkler_similarity(metric_id, $node) desc limit 3",
            {"node": node},
        )
        hint = ", ".join(r["metric_id"] for r in close)
        raise UsageError(f"unknown node {node!r}; did you mean: {hint}?")
    out = {"node": rows[0], "edges": fetch_dicts(con, _sql("graph_node.sql"), {"node": node}), "edge_weights": []}
    if subject:
        from .ask import check_subject

        check_subject(con, subject)
        out["edge_weights"] = fetch_dicts(con, _sql("graph_node_weights.sql"), {"node": node, "subject": subject})
    return out
