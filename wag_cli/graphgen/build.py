"""Algorithm 1 (DESIGN.md §9): grow a seed graph by a list of metrics with a language model.

For each input metric (``{"name", **hints}``, e.g. dataset, column, observed values):

1. **Merge** — if it matches an existing node (:func:`.merge.find_match`), **UpdateNode** adds the
   name as an alias and the data source; no request.
2. **NodeGen** — the others, :data:`NODE_BATCH` per request (:func:`.nodegen.nodegen`). A node whose
   id or name is already taken is merged instead (UpdateNode), so a model cannot duplicate a node.
3. **EdgeGen** — every new node against every node in the graph before it (the base and the new
   nodes before it, so each pair is judged once), :data:`EDGE_BATCH` per request (:func:`.edgegen.edgegen`); strengths >= 0.1 become
   ``prior_edges`` rows, lower ones ``prior_unrelated_pairs`` rows.

Every reply is validated with ``jsonschema`` and cached (:class:`wag_cli.llm.ReplyCache`): a re-run,
or a run resumed after an interruption, sends no request for what was answered. A batch whose reply
stays invalid after the client's re-asks is reported in :class:`BuildStats` and nothing of it is
written (a new node with a failed EdgeGen batch is left out entirely, so every written node has all
its pairs judged).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..catalog import split_aliases
from ..llm import LLMError
from .edgegen import edgegen, seed_rows
from .merge import find_match, taken_words, update_node
from .nodegen import nodegen, snake
from .seeds import GraphSeeds

NODE_BATCH = 4
EDGE_BATCH = 12


@dataclass
class BuildStats:
    """What a build did: merged ``{name: (metric_id, how)}``, ``added`` ids, request and token
    counts (``prompt_tokens``: ceil(chars/4) of the messages sent, re-asks included; ``usage`` as the
    server reported it),
    ``cache_hits`` and ``failed`` (``[(step, what, reason)]``)."""

    merged: dict[str, tuple[str, str]] = field(default_factory=dict)
    added: list[str] = field(default_factory=list)
    requests: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    failed: list[tuple[str, str, str]] = field(default_factory=list)
    usage: dict = field(default_factory=dict)


def _node_row(node: dict, hints: dict) -> dict:
    src = hints.get("data_source") or ""
    return {
        "metric_id": node["metric_id"], "name": node["name"].strip(), "category": node["category"],
        "unit": node["unit"].strip(), "data_kind": node["data_kind"], "description": node["description"].strip(),
        "normal_range": node["normal_range"].strip(), "recommendations": node["recommendations"].strip(),
        "aliases": "|".join(dict.fromkeys(a.strip().lower() for a in node.get("aliases") or [] if a.strip())),
        "physical_min": "" if node.get("physical_min") is None else f"{node['physical_min']:g}",
        "physical_max": "" if node.get("physical_max") is None else f"{node['physical_max']:g}",
        "origin": "dataset" if src else "initial", "data_sources": src,
        "ratio_scale": "true" if node.get("ratio_scale") else "false",
    }


def _clean_aliases(g: GraphSeeds, row: dict, extra: list[str]) -> None:
    """Keep only aliases no other node owns (seed rule), adding ``extra`` words (the input name)."""
    taken = taken_words(g, row["metric_id"])
    own = {row["metric_id"], row["name"].lower()}
    words = [w for w in dict.fromkeys([*split_aliases(row["aliases"]), *extra]) if w and w.lower() not in taken
             and w.lower() not in own]
    row["aliases"] = "|".join(words)


def _counted(client, stats: BuildStats, fn, *args):
    """Run one request through ``fn`` counting requests, cache hits and the prompt estimate."""
    from ..answer.context import estimate_tokens

    before = client.http_calls
    try:
        out = fn(client, *args)
    finally:
        sent = client.http_calls - before
        stats.requests += sent
        if not sent and client.last_from_cache:
            stats.cache_hits += 1
        stats.prompt_tokens += sent * estimate_tokens(getattr(client, "last_messages", None) or [])
    return out


def build_graph(base: GraphSeeds, metrics: list[dict], client, *, delta: float | None = None,
                on_step=None) -> tuple[GraphSeeds, BuildStats]:
    """Algorithm 1 over ``metrics`` starting from ``base`` (not modified); returns the new graph and
    :class:`BuildStats`. ``on_step(kind, label, stats)`` is called after each request (progress).
    ``client`` is an :class:`wag_cli.llm.LLMClient` (required: the offline proposal is
    :func:`wag_cli.graphgen.propose.propose_nodes`)."""
    g = base.copy()
    stats = BuildStats()
    todo = []
    for m in metrics:
        hit = find_match(m["name"], g, client, delta)
        if hit:
            update_node(g, hit[0], m["name"], m.get("data_source"))
            stats.merged[m["name"]] = hit
        else:
            todo.append(m)
    new_rows: list[tuple[dict, dict]] = []
    for start in range(0, len(todo), NODE_BATCH):
        batch = todo[start:start + NODE_BATCH]
        try:
            nodes = _counted(client, stats, nodegen, batch)
        except LLMError as exc:
            stats.failed += [("NodeGen", m["name"], str(exc)) for m in batch]
            continue
        finally:
            if on_step:
                on_step("NodeGen", ", ".join(m["name"] for m in batch), stats)
        for m in batch:
            node = nodes[m["name"]]
            node["metric_id"] = snake(node["metric_id"])
            hit = find_match(node["name"], g) or (
                (node["metric_id"], "generated id") if node["metric_id"] in g.nodes else None)
            if hit:                                         # the model named an existing node: merge
                update_node(g, hit[0], m["name"], m.get("data_source"))
                stats.merged[m["name"]] = hit
                continue
            row = _node_row(node, m)
            _clean_aliases(g, row, [m["name"].lower()] if m["name"].lower() != row["name"].lower() else [])
            g.nodes[row["metric_id"]] = row
            new_rows.append((row, m))
    order = list(g.nodes)
    for row, m in new_rows:
        # against every node already in the graph when this one arrived: the base and the new nodes
        # before it (so each pair is judged once)
        others = [mid for mid in order[:order.index(row["metric_id"])] if mid in g.nodes]
        judged: dict[str, dict] = {}
        ok = True
        for start in range(0, len(others), EDGE_BATCH):
            batch = others[start:start + EDGE_BATCH]
            try:
                judged.update(_counted(client, stats, edgegen, row, {o: g.nodes[o]["name"] for o in batch}))
            except LLMError as exc:
                stats.failed.append(("EdgeGen", f"{row['metric_id']} vs {batch[0]}..{batch[-1]}", str(exc)))
                ok = False
                break
            finally:
                if on_step:
                    on_step("EdgeGen", f"{row['metric_id']} ({min(start + EDGE_BATCH, len(others))}/{len(others)})",
                            stats)
        if not ok:
            del g.nodes[row["metric_id"]]
            continue
        for other, j in judged.items():
            kind, seed = seed_rows(row["metric_id"], other, j)
            key = (seed["node_a"], seed["node_b"])
            (g.edges if kind == "edge" else g.unrelated)[key] = seed
        stats.added.append(row["metric_id"])
    # new nodes whose EdgeGen failed were removed: drop any pair that names a node no longer present
    for table in (g.edges, g.unrelated):
        for key in [k for k in table if k[0] not in g.nodes or k[1] not in g.nodes]:
            del table[key]
    stats.usage = dict(getattr(client, "usage", {}) or {})
    return g, stats
