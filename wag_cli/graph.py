"""`wag graph show`: a node, its prior edges and (for a subject) the weight columns (DESIGN.md §6, §9)."""

from __future__ import annotations

from importlib import resources

import duckdb

from .db import fetch_dicts
from .errors import UsageError


def _sql(name: str) -> str:
    return resources.files("wag_cli").joinpath("sql", name).read_text(encoding="utf-8")


def resolve_node(con: duckdb.DuckDBPyConnection, node: str) -> str:
    """The node id that ``node`` names: a ``nodes`` id, else a catalog id, name or alias (any case);
    UsageError naming the three closest ids otherwise."""
    if fetch_dicts(con, "select 1 from nodes where metric_id = $node", {"node": node}):
        return node
    from .catalog import load_catalog
    from .query.embeddings import lexical_match

    resolved = lexical_match(node, load_catalog(con))
    if resolved and fetch_dicts(con, "select 1 from nodes where metric_id = $node", {"node": resolved}):
        return resolved
    close = fetch_dicts(
        con,
        "select metric_id from nodes order by jaro_winkler_similarity(metric_id, $node) desc limit 3",
        {"node": resolved or node},
    )
    hint = ", ".join(r["metric_id"] for r in close)
    raise UsageError(f"unknown node {node!r}; did you mean: {hint}?")


def node_view(con: duckdb.DuckDBPyConnection, node: str, subject: str | None = None) -> dict:
    """{'node': nodes row, 'edges': [...], 'edge_weights': [...]}; UsageError for an unknown node/subject."""
    node = resolve_node(con, node)
    rows = fetch_dicts(con, "select * from nodes where metric_id = $node", {"node": node})
    out = {"node": rows[0], "edges": fetch_dicts(con, _sql("graph_node.sql"), {"node": node}), "edge_weights": []}
    if subject:
        from .pipeline import check_subject

        check_subject(con, subject)
        out["edge_weights"] = fetch_dicts(con, _sql("graph_node_weights.sql"), {"node": node, "subject": subject})
    return out
