"""Merge and UpdateNode of Algorithm 1 (DESIGN.md §9): a metric that is already a node updates it.

A proposed metric (a name, optionally a dataset column) matches an existing node when its name
equals the node's id, name or one of its aliases (case- and separator-insensitive,
:func:`wag_cli.query.embeddings.lexical_match`), or — with a model client that has embeddings — when the
cosine similarity of the name to a node text is at least ``delta`` (dbt var ``delta``, 0.85).
UpdateNode then adds the name as an alias (when it is no other node's word) and the data source,
and marks an ``initial`` node ``both``; nothing else of the node changes.
"""

from __future__ import annotations

from ..catalog import Metric, split_aliases
from .seeds import GraphSeeds


def as_metrics(g: GraphSeeds) -> dict[str, Metric]:
    """The seed nodes as :class:`wag_cli.catalog.Metric` (for the matchers)."""
    return {mid: Metric(metric_id=mid, name=r.get("name", ""), category=r.get("category", ""), unit=r.get("unit", ""),
                        data_kind=r.get("data_kind", ""), description="", normal_range="", recommendations="",
                        aliases=split_aliases(r.get("aliases")), origin=r.get("origin", ""),
                        data_sources=r.get("data_sources", ""))
            for mid, r in g.nodes.items()}


def taken_words(g: GraphSeeds, except_id: str | None = None) -> set[str]:
    """Lower-cased ids, names and aliases of every node but ``except_id`` (an alias is one node's)."""
    out = set()
    for mid, r in g.nodes.items():
        if mid == except_id:
            continue
        out |= {mid.lower(), mid.replace("_", " ").lower(), (r.get("name") or "").lower()}
        out |= {a.lower() for a in split_aliases(r.get("aliases"))}
    return out


def find_match(name: str, g: GraphSeeds, client=None, delta: float | None = None) -> tuple[str, str] | None:
    """``(metric_id, how)`` of the node ``name`` matches ('alias' or 'embedding cosine x.xx'), or None."""
    from ..query.embeddings import EMBED_DELTA, embedding_matches, lexical_match

    catalog = as_metrics(g)
    mid = lexical_match(name, catalog)
    if mid:
        return mid, "name/alias"
    if client is not None and getattr(client, "embed_model", None):
        try:
            hit = embedding_matches([name], catalog, client, delta=EMBED_DELTA if delta is None else delta)
        except Exception:  # noqa: BLE001 - embeddings are optional: no match
            return None
        if name in hit:
            return hit[name][0], f"embedding cosine {hit[name][1]:.2f}"
    return None


def update_node(g: GraphSeeds, metric_id: str, name: str, data_source: str | None = None) -> list[str]:
    """UpdateNode: add ``name`` as an alias of ``metric_id`` (unless another node owns the word) and
    ``data_source`` to its data sources; an ``initial`` node becomes ``both``. Returns what changed."""
    row = g.nodes[metric_id]
    changed = []
    word = " ".join(name.lower().replace("_", " ").split())
    aliases = list(split_aliases(row.get("aliases")))
    own = {metric_id.lower(), metric_id.replace("_", " ").lower(), (row.get("name") or "").lower(),
           *(a.lower() for a in aliases)}
    if word and word not in own and word not in taken_words(g, metric_id):
        aliases.append(word)
        row["aliases"] = "|".join(aliases)
        changed.append(f"alias {word!r}")
    if data_source and data_source not in (row.get("data_sources") or ""):
        row["data_sources"] = "; ".join(x for x in (row.get("data_sources"), data_source) if x)
        changed.append("data source")
        if row.get("origin") == "initial":
            row["origin"] = "both"
            changed.append("origin both")
    return changed
