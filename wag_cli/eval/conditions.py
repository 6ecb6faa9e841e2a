"""The two added baselines of the main experiment (DESIGN.md §10; the authors' release,
``response_generation/core/static_graph_processor.py`` and ``full_context_processor.py``).

* **StaticGraph** (:func:`static_graph`): WAG's retrieval with the same openness budget and context
  format, but its neighbours are ranked by the general knowledge graph's prior weight ``W_prior``
  alone (``wag_retrieve(..., rank_by := 'p_prior')``, ties by metric id); the subject's data decide
  only which neighbours exist (a metric with no data up to t is no candidate), never their order.
  No personal, population or local signal reaches the answer: those columns are blanked.
* **FullContext** (:func:`full_context_condition`): every metric the subject has in the window, the
  question's metrics first (role primary), the rest as unranked context (role neighbour, by metric id),
  with the same node format (knowledge included) and no weights. Its prompt is never trimmed; when it
  exceeds the token budget the run records that (``eval_answers.error`` note) instead of cutting it.
"""

from __future__ import annotations

from dataclasses import replace

from ..retrieve import Subgraph

#: experiment -> ((condition, method, rank_by), ...); rank_by None = no neighbours (budget 0).
EXPERIMENTS: dict[str, tuple[tuple[str, str, str | None], ...]] = {
    "main": (("base", "base", None), ("rag", "rag", None), ("static", "static", "p_prior"),
             ("full", "full", None), ("wag", "wag", "w_final")),
    "exp_g": (("w_prior", "wag", "p_prior"), ("w_pop", "wag", "w_pop"), ("w_ind", "wag", "w_ind"),
              ("w_global", "wag", "w_global")),
    "exp_l": (("w_global", "wag", "w_global"), ("w_local", "wag", "w_local"), ("w_final", "wag", "w_final")),
}


def is_candidate(q: dict) -> bool:
    """A single-metric tuple question: the only kind Exp-G / Exp-L take (multi-metric and gold-track
    questions never enter them; DESIGN.md §10)."""
    return q.get("kind") == "single" and len(q.get("metrics") or []) == 1


#: the prior weight StaticGraph ranks by
STATIC_RANK_BY = "p_prior"
_PERSONAL = dict(w_global=None, w_local=None, w_final=None, fallback=None, r_s_signed=None, n_s=None,
                 r_pop_signed=None, n_pop=None, n_pop_subjects=None, r_s_reason=None, r_pop_reason=None,
                 pop_as_of_day=None)


def static_graph(sg: Subgraph) -> Subgraph:
    """StaticGraph from a WAG retrieval ranked by ``p_prior``: the same nodes, method ``'static'``,
    each neighbour keeping its prior weight (``w_prior``, also its rank weight) and losing every
    personal, population and local column. Raises ``ValueError`` when ``sg`` was ranked otherwise."""
    if sg.method != "wag" or sg.rank_by != STATIC_RANK_BY:
        raise ValueError(f"StaticGraph needs a WAG retrieval ranked by {STATIC_RANK_BY}, got {sg.method}/{sg.rank_by}")
    nodes = [replace(n, **_PERSONAL, rank_weight=n.w_prior) if n.role == "neighbour" else n for n in sg.nodes]
    return replace(sg, method="static", nodes=nodes)


def full_context_condition(con, sg: Subgraph, catalog) -> Subgraph:
    """FullContext for ``sg``'s subject, metrics and window: :func:`wag_cli.answer.context.full_context`
    (every catalog metric with data in the window, from the same ``node_window.sql`` as retrieval)
    with ``sg``'s primaries first and the rest as neighbours ordered by metric id."""
    from ..answer.context import full_context

    return full_context(con, sg, catalog)
