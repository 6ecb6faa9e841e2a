"""Pictures of the knowledge graph (issue 11 item 6; paper Fig. 2/7): PNG via networkx + matplotlib.

* the general graph (``nodes`` and ``edges`` of the warehouse), or one node's neighbourhood;
* a retrieved subgraph (``wag ask`` for a subject and question): primaries and the neighbours
  retrieved for them, edges weighted by ``w_final``.

Nodes are coloured by category (:data:`CATEGORY_COLOURS`), edge widths scale with the weight
(``w_prior`` for the general graph). The layout is networkx's spring layout with a fixed seed, so
the same graph gives the same picture.
"""

from __future__ import annotations

from pathlib import Path

CATEGORY_COLOURS = {
    "Physiological": "#d62728", "Sleep": "#1f77b4", "Activity": "#2ca02c", "Mental": "#9467bd",
    "Environmental": "#8c564b", "Lifestyle": "#ff7f0e", "Demographic": "#7f7f7f",
}


def graph_from_rows(nodes: list[dict], edges: list[dict], weight: str = "w_prior"):
    """A ``networkx.Graph`` with node attribute ``category``/``name`` and edge attribute ``weight``.

    ``nodes``: ``[{"metric_id", "name", "category"}]``; ``edges``: ``[{"node_a", "node_b", weight}]``
    (edges naming unknown nodes are skipped)."""
    import networkx as nx

    g = nx.Graph()
    for n in nodes:
        g.add_node(n["metric_id"], name=n.get("name") or n["metric_id"], category=n.get("category") or "")
    for e in edges:
        if e["node_a"] in g and e["node_b"] in g:
            g.add_edge(e["node_a"], e["node_b"], weight=float(e.get(weight) or 0.0))
    return g


def draw(g, out: Path, title: str, *, highlight: set[str] | None = None, labels: bool | None = None) -> Path:
    """Write ``g`` as a PNG at ``out`` (parents created); returns the path. ``highlight``: nodes drawn
    larger with a black outline (primaries). Labels are drawn for graphs up to 60 nodes unless forced;
    graphs with up to 20 edges also show each edge's weight."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import networkx as nx
    from matplotlib.lines import Line2D

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    highlight = highlight or set()
    labels = g.number_of_nodes() <= 60 if labels is None else labels
    fig, ax = plt.subplots(figsize=(10, 8), dpi=100)
    pos = nx.spring_layout(g, seed=7, weight="weight") if g.number_of_nodes() else {}
    weights = [d["weight"] for _, _, d in g.edges(data=True)]
    top = max(weights, default=1.0) or 1.0
    nx.draw_networkx_edges(g, pos, ax=ax, width=[0.3 + 4.0 * w / top for w in weights], alpha=0.45,
                           edge_color="#555555")
    colours = [CATEGORY_COLOURS.get(g.nodes[n].get("category"), "#bbbbbb") for n in g.nodes]
    sizes = [700 if n in highlight else 260 for n in g.nodes]
    nx.draw_networkx_nodes(g, pos, ax=ax, node_color=colours, node_size=sizes,
                           edgecolors=["black" if n in highlight else "white" for n in g.nodes], linewidths=1.5)
    if labels:
        nx.draw_networkx_labels(g, pos, ax=ax, labels={n: g.nodes[n]["name"] for n in g.nodes}, font_size=8)
    if g.number_of_edges() <= 20:                       # small (sub)graphs: the weight on each edge
        nx.draw_networkx_edge_labels(g, pos, ax=ax, font_size=7,
                                     edge_labels={(a, b): f"{d['weight']:.2f}" for a, b, d in g.edges(data=True)})
    present = sorted({g.nodes[n].get("category") for n in g.nodes} & set(CATEGORY_COLOURS))
    ax.legend(handles=[Line2D([0], [0], marker="o", color="w", markerfacecolor=CATEGORY_COLOURS[c], markersize=9,
                              label=c) for c in present], loc="lower left", fontsize=8, frameon=False)
    ax.set_title(title, fontsize=11)
    ax.axis("off")
    fig.tight_layout()
    fig.savefig(out, format="png")
    plt.close(fig)
    return out


def general_graph(con, node: str | None = None):
    """``(graph, highlight)`` of the warehouse graph, or of ``node`` and its neighbours (only the
    node's own edges, a star, so the widths read as its edge weights)."""
    from ..db import fetch_dicts

    nodes = fetch_dicts(con, "select metric_id, name, category from nodes order by metric_id")
    edges = fetch_dicts(con, "select node_a, node_b, w_prior from edges")
    g = graph_from_rows(nodes, edges)
    if node is None:
        return g, set()
    star = graph_from_rows([n for n in nodes if n["metric_id"] == node or g.has_edge(node, n["metric_id"])],
                           [e for e in edges if node in (e["node_a"], e["node_b"])])
    return star, {node}


def subgraph_graph(sg):
    """``(graph, highlight)`` of a retrieved :class:`wag_cli.retrieve.Subgraph` (edge weight w_final)."""
    nodes = [{"metric_id": n.metric_id, "name": n.name, "category": n.category} for n in sg.nodes]
    edges = [{"node_a": n.primary_node, "node_b": n.metric_id, "w_final": n.w_final} for n in sg.neighbours]
    return graph_from_rows(nodes, edges, weight="w_final"), {n.metric_id for n in sg.primaries}
