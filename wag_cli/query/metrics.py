"""Metric matching of QueryParse (DESIGN.md §8, §9): the catalog's ids, names and aliases against
normalised n-grams of the question — exact phrases first, longest match wins, then a calibrated
typo-tolerant fuzzy match (rapidfuzz)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz import process
from rapidfuzz.distance import DamerauLevenshtein

from ..catalog import Metric
from .lexicon import NON_METRIC_PHRASES, _GENERIC_HEADS, _NO_FUZZY, _STOPWORDS, lemma, tokens


# --------------------------------------------------------------------------- metric matching


# Allowed Damerau-Levenshtein edits by length of the compared text (characters, no spaces).
# Calibrated on the dev set plus synthetic typos (see tests/test_parse.py): <= 4 chars exact only.
_FUZZY_EDITS = ((4, 0), (10, 1), (20, 2))
_FUZZY_EDITS_MAX = 3
MAX_PHRASE_TOKENS = 8


def allowed_edits(n_chars: int) -> int:
    """Edits tolerated when fuzzy-matching a text of ``n_chars`` letters (no spaces)."""
    for limit, edits in _FUZZY_EDITS:
        if n_chars <= limit:
            return edits
    return _FUZZY_EDITS_MAX


@dataclass(frozen=True)
class _Phrase:
    key: tuple[str, ...]      # lemmatised tokens
    metric_id: str | None     # None for NON_METRIC_PHRASES
    text: str                 # as written in the catalog
    rank: int                 # 0 id/name, 1 alias (lower wins on a tie)
    order: int                # catalog order (lower wins on a tie)


@dataclass(frozen=True)
class _Index:
    exact: dict[tuple[str, ...], _Phrase]   # lemma key -> phrase
    compact: dict[str, _Phrase]             # lemma key without spaces ("heartrate") -> phrase
    fuzzy_choices: tuple[str, ...]          # raw and lemma forms, space-joined, for rapidfuzz
                                            # (NON_METRIC_PHRASES included: a fuzzy hit consumes)
    fuzzy_phrases: tuple[_Phrase, ...]      # parallel to fuzzy_choices
    vocabulary: frozenset[str]              # every token of every phrase (raw and lemma)
    data_bearing: frozenset[str]


def _has_data(m: Metric) -> bool:
    return m.origin != "initial" or bool(m.data_sources)


def _build_index(catalog: dict[str, Metric]) -> _Index:
    exact: dict[tuple[str, ...], _Phrase] = {}
    raw_forms: dict[str, _Phrase] = {}
    for order, m in enumerate(catalog.values()):
        texts = [(m.metric_id.replace("_", " "), 0), (m.name, 0)] + [(a, 1) for a in m.aliases]
        for text, rank in texts:
            raw = tokens(text)
            key = tuple(lemma(t) for t in raw)
            if not key or all(t in _STOPWORDS for t in key):
                continue
            p = _Phrase(key, m.metric_id, text, rank, order)
            old = exact.get(key)
            if old is None or (p.rank, p.order) < (old.rank, old.order):
                exact[key] = p
            raw_forms.setdefault(" ".join(raw), p)
    for text in NON_METRIC_PHRASES:
        key = tuple(lemma(t) for t in tokens(text))
        exact[key] = _Phrase(key, None, text, -1, -1)
    compact: dict[str, _Phrase] = {}
    for key, p in exact.items():
        compact.setdefault("".join(key), p)
    choices: dict[str, _Phrase] = {}
    for key, p in exact.items():
        choices.setdefault(" ".join(key), p)
    for text, p in raw_forms.items():
        choices.setdefault(text, exact[p.key] if exact[p.key].metric_id else p)
    vocab = {t for k in exact for t in k} | {t for text in raw_forms for t in text.split()}
    return _Index(
        exact=exact,
        compact=compact,
        fuzzy_choices=tuple(choices),
        fuzzy_phrases=tuple(choices.values()),
        vocabulary=frozenset(vocab),
        data_bearing=frozenset(mid for mid, m in catalog.items() if _has_data(m)),
    )


@lru_cache(maxsize=4)
def _cached_index(catalog_key: tuple) -> _Index:
    return _build_index(dict(catalog_key))


def _index(catalog: dict[str, Metric]) -> _Index:
    return _cached_index(tuple(catalog.items()))


def _fuzzy(span_raw: list[str], span_lem: list[str], idx: _Index) -> tuple[_Phrase, float] | None:
    """Closest phrase within the allowed edits of the span (raw or lemma form), with its score.

    Edits allowed: :func:`allowed_edits` of the longer of the two texts; both need >= 4 letters
    (so "slee" -> "sleep" but 3-letter words never match fuzzily).
    Score = 100 * (1 - edits / longer length). Ties: fewer edits, then id/name before alias, then
    catalog order.
    """
    best = None
    for query in dict.fromkeys((" ".join(span_raw), " ".join(span_lem))):
        n = len(query.replace(" ", ""))
        if n < 4:
            continue
        cutoff = allowed_edits(n + _FUZZY_EDITS_MAX)
        for _choice, d, i in process.extract(query, idx.fuzzy_choices, scorer=DamerauLevenshtein.distance,
                                             score_cutoff=cutoff, limit=None):
            choice = idx.fuzzy_choices[i]
            c_n = len(choice.replace(" ", ""))
            if min(n, c_n) < 4 or d > allowed_edits(max(n, c_n)):
                continue
            p = idx.fuzzy_phrases[i]
            sim = round(100.0 * (1 - d / max(len(query), len(choice))), 1)
            rank = (d, -sim, p.rank, p.order)
            if best is None or rank < best[0]:
                best = (rank, p, sim)
    return None if best is None else (best[1], best[2])


def match_metrics(question: str, catalog: dict[str, Metric]) -> list[dict]:
    """Catalog metrics named in ``question``: ``[{"phrase", "metric_id", "score", "how", "span"}]``.

    Candidates:

    * exact — every n-gram of lemmatised tokens (also with spaces removed, so "heartrate" meets
      "heart rate") found among ids, names and aliases (score 100);
    * fuzzy — n-grams of 1..4 tokens that contain a word unknown to the catalog (a suspected typo),
      do not start/end with a stop word, and lie within :func:`allowed_edits` Damerau-Levenshtein
      edits of a phrase ("stpes" -> steps, "restign heart rate" -> resting heart rate).

    Selection: longest span first (letters covered), exact before fuzzy, higher score, earlier;
    spans may not overlap, so "deep sleep" beats "sleep" and "resting heart rate" beats
    "heart rate". A metric without data matched through "<x> <generic head>" ("activity level") is
    replaced by the data-bearing metric named "<x>" (``how = "generic-head"``). A bare modifier
    coordinated with a matched phrase takes its head ("deep and REM sleep" -> deep sleep too,
    ``how = "coordination"``). Phrases of
    :data:`NON_METRIC_PHRASES` consume their words and yield nothing. Result in order of
    appearance, one entry per metric.
    """
    idx = _index(catalog)
    raw = tokens(question)
    lem = [lemma(t) for t in raw]
    n = len(raw)

    cands: list[tuple[int, int, int, float, _Phrase, str]] = []  # (start, end, exact, score, phrase, how)
    for i in range(n):
        for j in range(i + 1, min(n, i + MAX_PHRASE_TOKENS) + 1):
            key = tuple(lem[i:j])
            p = idx.exact.get(key) or idx.compact.get("".join(key))
            if p is not None:
                cands.append((i, j, 1, 100.0, p, "exact"))
    # elliptical coordination: "deep and REM sleep", "light, deep and REM sleep" -> each modifier
    # before "and"/"or" takes the head of the phrase that follows ("deep sleep", "light sleep")
    for i, j, _e, _s, p, _h in list(cands):
        if j - i < 2 or p.metric_id is None:
            continue
        tail, k, seen_conj = p.key[1:], i - 1, False
        while k >= 0:
            if lem[k] in ("and", "or"):
                seen_conj, k = True, k - 1
                continue
            q = idx.exact.get((lem[k],) + tail)
            if not seen_conj or q is None or q.metric_id is None:
                break
            cands.append((k, k + 1, 1, 100.0, q, "coordination"))
            k -= 1
    exact_spans = {(c[0], c[1]) for c in cands}
    for i in range(n):
        for j in range(i + 1, min(n, i + 4) + 1):
            span_raw, span_lem = raw[i:j], lem[i:j]
            if (i, j) in exact_spans or span_raw[0] in _STOPWORDS or span_raw[-1] in _STOPWORDS:
                continue
            if any(t.isdigit() for t in span_raw):
                continue
            if all(r in idx.vocabulary or l in idx.vocabulary or r in _NO_FUZZY for r, l in zip(span_raw, span_lem)):
                continue
            hit = _fuzzy(span_raw, span_lem, idx)
            if hit is not None:
                cands.append((i, j, 0, hit[1], hit[0], "fuzzy"))

    taken = [False] * n
    chosen = []
    letters = lambda c: sum(len(t) for t in raw[c[0]:c[1]])  # noqa: E731
    for c in sorted(cands, key=lambda c: (-letters(c), -c[2], -c[3], c[0])):
        i, j = c[0], c[1]
        if not any(taken[i:j]):
            taken[i:j] = [True] * (j - i)
            chosen.append(c)

    out: list[dict] = []
    seen: set[str] = set()
    for i, j, _e, score, p, how in sorted(chosen, key=lambda c: c[0]):
        mid = p.metric_id
        if mid is None:
            continue
        if mid not in idx.data_bearing and len(p.key) > 1 and p.key[-1] in _GENERIC_HEADS:
            alt = idx.exact.get(p.key[:-1])
            if alt is not None and alt.metric_id in idx.data_bearing:
                mid, how = alt.metric_id, "generic-head"
        if mid in seen:
            continue
        seen.add(mid)
        out.append({"phrase": " ".join(raw[i:j]), "metric_id": mid, "score": score, "how": how,
                    "span": (i, j)})
    return out
