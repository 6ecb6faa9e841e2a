"""Text normalisation and the word lists of QueryParse (DESIGN.md §8), read once from
``wag_cli/data/lexicon.toml``: contractions, lemma forms, stop words, words never fuzzy-matched,
phrases that name no metric, generic head words, and the number words of every period rule.

Functions: :func:`normalise` (lower-case, contractions expanded, possessives dropped, punctuation to
single spaces), :func:`lemma` (word form used for matching), :func:`tokens`. A malformed data file
raises ``tomllib.TOMLDecodeError`` naming its line at import.
"""

from __future__ import annotations

import re
import tomllib
from importlib import resources

LEXICON_FILE = "lexicon.toml"

_DATA = tomllib.loads(resources.files("wag_cli").joinpath("data", LEXICON_FILE).read_text(encoding="utf-8"))

_CONTRACTIONS: tuple[tuple[str, str], ...] = tuple((c["pattern"], c["replace"]) for c in _DATA["contractions"])
#: Irregular or verbal forms reduced to the form the catalog uses (word forms, not synonyms).
_LEMMA: dict[str, str] = dict(_DATA["lemma"])
#: Words never matched on their own and never the edge of a fuzzy span.
_STOPWORDS = frozenset(_DATA["stopwords"])
#: Common words that are never fuzzy-matched to a metric word (they are real words, not typos).
_NO_FUZZY = frozenset(_DATA["no_fuzzy"])
#: Phrases that name a concept, not a metric: they are consumed without producing a metric so
#: that e.g. "sleep hygiene guidelines" does not select total sleep duration.
NON_METRIC_PHRASES: tuple[str, ...] = tuple(_DATA["non_metric_phrases"])
#: Generic head words: a phrase "<x> <head>" that names a metric with no data sources falls back
#: to the data-bearing metric named by "<x>" ("activity level" -> active_time).
_GENERIC_HEADS = frozenset(_DATA["generic_heads"])
#: Number words of period expressions ("two weeks", "a couple of days"), one list for every rule.
NUMBER_WORDS: dict[str, int] = dict(_DATA["number_words"])
#: "a"/"an" = 1, only where a unit follows in a relative expression ("a week before", "a day ago").
ARTICLES: dict[str, int] = dict(_DATA["articles"])


def normalise(text: str) -> str:
    """Lower-case, expand contractions, drop possessives, punctuation -> single spaces."""
    t = text.lower().replace("\u2019", "'").replace("\u2018", "'").replace("`", "'")
    for pat, rep in _CONTRACTIONS:
        t = re.sub(pat, rep, t)
    return " ".join(re.sub(r"[^a-z0-9]+", " ", t).split())


def lemma(token: str) -> str:
    """Word form used for matching: irregular map, then a plural ``-ies``/``-s`` strip (stem >= 4)."""
    if token in _LEMMA:
        return _LEMMA[token]
    if len(token) >= 5 and token.endswith("ies"):
        return token[:-3] + "y"
    if len(token) >= 5 and token.endswith("s") and not token.endswith(("ss", "us", "is")):
        return token[:-1]
    return token


def tokens(text: str) -> list[str]:
    """Normalised tokens of ``text`` (no lemmatisation)."""
    return normalise(text).split()
