"""Node matching by embedding similarity (DESIGN.md §8 step 1: a parsed metric becomes the
best-matching node when the cosine similarity passes the threshold delta = 0.85).

Used when a model is configured and proposes metric names that are not catalog ids. Node texts
are the catalog names and aliases; their vectors come from the client's cached embeddings.
"""

from __future__ import annotations

import math

from ..catalog import Metric



def _default_delta() -> float:
    """The dbt var ``delta`` (dbt_project.yml, the one source of truth); 0.85 without a project."""
    try:
        from ..settings import dbt_vars

        return float(dbt_vars()["delta"])
    except Exception:  # noqa: BLE001 - a non-editable install without the dbt project
        return 0.85


#: cosine threshold delta of DESIGN.md §8 step 1 (paper: 0.85)
EMBED_DELTA = _default_delta()


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


def lexical_match(phrase: str, catalog: dict[str, Metric]) -> str | None:
    """A catalog id whose id, name or an alias equals the phrase (case- and separator-insensitive)."""
    key = " ".join(phrase.lower().replace("_", " ").split())
    for m in catalog.values():
        names = {m.metric_id.replace("_", " "), m.name.lower(), *(a.lower() for a in m.aliases)}
        if key in names:
            return m.metric_id
    return None


def embedding_matches(phrases: list[str], catalog: dict[str, Metric], client,
                      delta: float = EMBED_DELTA) -> dict[str, tuple[str, float]]:
    """``{phrase: (metric_id, cosine)}`` for the phrases whose best node passes ``delta``.

    Every catalog name and alias is a node text (an alias match counts for its metric).
    Raises whatever ``client.embed`` raises (the caller treats it as "no embedding match").
    """
    if not phrases:
        return {}
    texts, owners = [], []
    for m in catalog.values():
        for t in (m.name, *m.aliases):
            texts.append(t)
            owners.append(m.metric_id)
    vectors = client.embed(list(phrases) + texts)
    phrase_vecs, node_vecs = vectors[: len(phrases)], vectors[len(phrases):]
    out: dict[str, tuple[str, float]] = {}
    for phrase, pv in zip(phrases, phrase_vecs):
        best_id, best = None, -1.0
        for owner, nv in zip(owners, node_vecs):
            c = _cosine(pv, nv)
            if c > best or (c == best and best_id is not None and owner < best_id):
                best_id, best = owner, c
        if best_id is not None and best >= delta:
            out[phrase] = (best_id, best)
    return out
