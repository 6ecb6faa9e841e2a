"""QueryParse (DESIGN.md §8): question -> (metrics M^q, window k^q, reference day t^q, openness eta).

Two paths, same result type (:class:`ParsedQuery`):

* :func:`parse_offline` — deterministic, no network. Metrics come from matching the catalog's ids,
  names and aliases (DESIGN.md §9) against normalised n-grams of the question (exact phrases first,
  longest match wins, then a calibrated typo-tolerant fuzzy match, rapidfuzz); the window from
  period phrases (conventions of ``eval/README.md``); the question category from cue phrases with a
  fixed precedence (:func:`category_rules`, cues in ``data/category_cues.toml``); openness = midpoint of the category's range (§10).
* with a model: :func:`wag_cli.parse_combine.parse` starts from this offline reading and lets the model
  correct it where the offline matcher is unsure (DESIGN.md §8 "QueryParse with a model"); the period
  always comes from the rules here.

Units: ``window_days`` in days (``None`` = the whole history, shown as ``"all"``); ``ref_offset`` in
days relative to the as-of day (``-1`` = yesterday); ``openness`` in [0, 1].
Errors: an empty/whitespace question raises ``ValueError("empty question")``. A question naming no
known metric is not an error here: ``metrics`` is ``[]`` and the CLI reports it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import lru_cache
from typing import Any, Iterable

from rapidfuzz import process
from rapidfuzz.distance import DamerauLevenshtein

from .catalog import Metric, load_catalog
from .categories import CATEGORY_OPENNESS
from .dates import Period, comparison_periods, correct_period_words, resolve_period, rolling, unrecognised_period

# --------------------------------------------------------------------------- categories (§10)


DEFAULT_CATEGORY = "Data Retrieval"
DEFAULT_WINDOW = 7
#: What an answer must contain (wag_cli.answer's analysis): a look-up, the pair's correlation, what
#: goes with X most, a trend, two periods side by side, or the most abnormal metrics overall.
INTENTS = ("lookup", "relationship", "influences", "trend", "comparison", "overview")


def category_openness(category: str) -> float:
    """Midpoint of the category's openness range, rounded to 2 decimals (KeyError if unknown)."""
    lo, hi = CATEGORY_OPENNESS[category]
    return round((lo + hi) / 2, 2)


# --------------------------------------------------------------------------- result type


@dataclass
class ParsedQuery:
    """The output of QueryParse.

    ``metrics``: catalog ids in order of appearance; ``window_days``: days, ``None`` = all history;
    ``reference_day`` = as-of day + ``ref_offset``; ``matches``: why each metric was picked
    (``{"phrase", "metric_id", "score", "how"}``; score 100 = exact); ``source``: ``offline`` or
    ``model``; ``fallback_reason``: why the model reply was not used (``None`` if it was, or no
    model was asked); ``dropped_metrics``: unknown ids the model proposed.

    Question shape (DESIGN.md §8 "Periods"): ``period`` is the resolved range ``[start, end]`` with
    ``end = reference_day`` and ``window_days = end - start + 1`` (``start`` None = all history);
    ``comparison`` is ``(kind, period_a, period_b)`` for two periods side by side
    (:func:`wag_cli.dates.comparison_periods`), else None; ``intent`` is what the answer must
    contain (:data:`INTENTS`); ``display_unit`` is the unit the question asks in ("hours") or None;
    ``corrections``: misspelled period words read as another (``[("febuary", "february")]``,
    :func:`wag_cli.dates.correct_period_words`), stated in the answer.

    With a model (DESIGN.md §8 "QueryParse with a model"): ``source`` is ``combined`` when both readings
    contributed; ``sources`` says per field (metrics, category, openness, period) where it came from
    (``offline``, ``model``, ``combined``; empty = every field from ``source``); ``overruled_metrics``:
    catalog ids the model proposed that were not kept; ``period_notes``: sentences the answer states
    about the period (a time expression not understood, or the model's reading of it, §11).
    """

    question: str
    metrics: list[str]
    window_days: int | None
    reference_day: date
    ref_offset: int
    openness: float
    category: str
    matches: list[dict] = field(default_factory=list)
    source: str = "offline"
    fallback_reason: str | None = None
    dropped_metrics: list[str] = field(default_factory=list)
    period: Period | None = None
    comparison: tuple[str, Period, Period] | None = None
    intent: str = "lookup"
    display_unit: str | None = None
    corrections: list[tuple[str, str]] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)
    overruled_metrics: list[str] = field(default_factory=list)
    period_notes: list[str] = field(default_factory=list)

    @property
    def resolved_period(self) -> Period:
        """``period``, or the rolling window ending on the reference day when none was set."""
        return self.period or rolling(self.reference_day, self.window_days)

    def to_json(self) -> dict:
        """JSON-ready dict: ``window_days`` is an int or ``"all"``, days ISO text; ``period_start``
        is None for all history; ``comparison`` is ``{"kind", "a", "b"}`` (periods as
        :meth:`Period.to_json`) or None."""
        per = self.resolved_period
        out = {
            "metrics": list(self.metrics),
            "window_days": "all" if self.window_days is None else self.window_days,
            "reference_day": self.reference_day.isoformat(),
            "openness": self.openness,
            "category": self.category,
            "ref_offset": self.ref_offset,
            "matches": [dict(m) for m in self.matches],
            "source": self.source,
            "period_start": per.start.isoformat() if per.start else None,
            "period_end": per.end.isoformat(),
            "period_label": per.label,
            "comparison": None if self.comparison is None else {
                "kind": self.comparison[0], "a": self.comparison[1].to_json(), "b": self.comparison[2].to_json()},
            "intent": self.intent,
            "display_unit": self.display_unit,
            "sources": {k: self.sources.get(k, self.source) for k in ("metrics", "category", "openness", "period")},
        }
        if self.fallback_reason:
            out["fallback_reason"] = self.fallback_reason
        if self.dropped_metrics:
            out["dropped_metrics"] = list(self.dropped_metrics)
        if self.corrections:
            out["corrections"] = [list(c) for c in self.corrections]
        if self.overruled_metrics:
            out["overruled_metrics"] = list(self.overruled_metrics)
        if self.period_notes:
            out["period_notes"] = list(self.period_notes)
        return out


# --------------------------------------------------------------------------- text normalisation

_CONTRACTIONS = (
    (r"\bcan't\b", "cannot"),
    (r"\bwon't\b", "will not"),
    (r"n't\b", " not"),
    (r"\b(what|how|it|that|there|who|where|when|here)'s\b", r"\1 is"),
    (r"'m\b", " am"),
    (r"'ve\b", " have"),
    (r"'re\b", " are"),
    (r"'ll\b", " will"),
    (r"'d\b", " would"),
    (r"'s\b", ""),  # possessive: "this week's" -> "this week"
)


def normalise(text: str) -> str:
    """Lower-case, expand contractions, drop possessives, punctuation -> single spaces."""
    t = text.lower().replace("\u2019", "'").replace("\u2018", "'").replace("`", "'")
    for pat, rep in _CONTRACTIONS:
        t = re.sub(pat, rep, t)
    return " ".join(re.sub(r"[^a-z0-9]+", " ", t).split())


#: Irregular or verbal forms reduced to the form the catalog uses (word forms, not synonyms).
_LEMMA = {
    "slept": "sleep", "sleeping": "sleep", "sleeps": "sleep",
    "walked": "walk", "walking": "walk", "walks": "walk",
    "ran": "run", "running": "run", "runs": "run",
    "stressed": "stress", "stressful": "stress", "stresses": "stress",
    "burnt": "burn", "burned": "burn", "burning": "burn", "burns": "burn",
    "exercising": "exercise", "exercised": "exercise",
    "woke": "wake", "waking": "wake", "wakes": "wake",
    "travelled": "traveled",
}


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


# --------------------------------------------------------------------------- metric matching

#: Words never matched on their own and never the edge of a fuzzy span.
_STOPWORDS = frozenset(
    "a an the my me i i'm am is are was were be been being do does did doing have has had of in on "
    "at to for from by with and or but if so than then that this these those it its what which who "
    "when where why how much many any some all no not too also just about over per during "
    "into out up down your you our we us can could should would will there their there's".split()
)

#: Common words that are never fuzzy-matched to a metric word (they are real words, not typos).
_NO_FUZZY = frozenset(
    # time and period words
    "week weeks month months year years today yesterday tomorrow night nights morning evening hours "
    "hour minutes minute seconds days daily weekly monthly recently lately since started start "
    "overall usually often sometimes always never ever again early late later first next last past "
    # question and analysis words
    "time times trend trends pattern patterns value values level levels score scores rate rates "
    "usual unusual normal average total higher highest lower lowest high low better worse best worst "
    "compare compared insight insights think relationship related relate between steady stable "
    "change changed changes tips advice reduce improve improved increase decrease quality state "
    "status stats data range ranges healthy good great bad more most less least enough "
    # common English words one edit away from some alias
    "such much each every some other like just only also even still really quite rather well "
    "seem seems look looks looked done going went come came know want need feel felt find found "
    "help keep kept thing things something anything nothing people person life work place part "
    "point case fact group hand long longer short big small large little right left same "
    "different sure able many few new old own them they then than with without within would "
    "could should were where which while whole will your back after before here these those "
    "from into onto over under above below through during until about around against among "
    "does heat tire steep slope stops sheep stuff check same sleeper stage stages heart".split()
)

#: Phrases that name a concept, not a metric: they are consumed without producing a metric so
#: that e.g. "sleep hygiene guidelines" does not select total sleep duration.
NON_METRIC_PHRASES = ("sleep hygiene", "sleep guideline", "sleep habit", "i log", "to log", "you log")

#: Generic head words: a phrase "<x> <head>" that names a metric with no data sources falls back
#: to the data-bearing metric named by "<x>" ("activity level" -> active_time).
_GENERIC_HEADS = frozenset({"level", "score", "amount", "value", "data", "reading"})

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


# --------------------------------------------------------------------------- window

_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "ninety": 90, "a couple of": 2, "couple of": 2, "a few": 3, "few": 3,
}
_UNIT_DAYS = {"day": 1, "night": 1, "week": 7, "month": 30, "year": 365}
_NUM = r"(\d+|" + "|".join(sorted(map(re.escape, _NUMBER_WORDS), key=len, reverse=True)) + r")"

# (pattern, fn(match) -> (window_days, ref_offset)); all on normalised text.
_PERIODS: tuple[tuple[str, Any], ...] = (
    (r"\bday before yesterday\b", lambda m: (1, -2)),
    (r"\byesterday\b", lambda m: (1, -1)),
    (r"\b(today|tonight|this morning|this afternoon|this evening|last night)\b", lambda m: (1, 0)),
    (r"\b(past|last|previous|prior) 24 hours\b", lambda m: (1, 0)),
    (r"\b" + _NUM + r" (day|night|week|month|year)s?\b",
     lambda m: (_num(m.group(1)) * _UNIT_DAYS[m.group(2)], 0)),
    (r"\bfortnight\b", lambda m: (14, 0)),
    (r"\b(this|past|last|previous|prior|current|recent) quarter\b", lambda m: (90, 0)),
    (r"\b(this|past|last|previous|prior|current|the) (week|month|year)\b",
     lambda m: (_UNIT_DAYS[m.group(2)], 0)),
)

#: Bare period words, used only when no explicit period above is named ("each week" -> 7).
_BARE_PERIODS: tuple[tuple[str, Any], ...] = (
    (r"\b(weekly|week)\b", lambda m: (7, 0)),
    (r"\b(monthly|month)\b", lambda m: (30, 0)),
)

#: History words: the whole record (window "all") when no explicit period is named.
_HISTORY = re.compile(
    r"\b(overall|ever|all time|since i (first )?(started|start|began|begun|joined|got)|since the (start|beginning)"
    r"|from the (start|beginning)|in general|generally|historically|whole history|entire history"
    r"|all (of )?my (data|history|records)|whole (record|period)|entire (record|period)|long term"
    r"|to date|since day one|lifetime|usually|typically)\b"
)


def _num(text: str) -> int:
    return int(text) if text.isdigit() else _NUMBER_WORDS[text]


def parse_window(question: str, mask: Iterable[tuple[int, int]] = ()) -> tuple[int | None, int, str]:
    """``(window_days or None for all, ref_offset, phrase)`` from the question's period words.

    The earliest explicit period wins ("this week vs last week" -> 7); with none, a history word
    ("overall", "ever", "since I started", "in general") -> ``None``; else the default 7 days.
    ``mask``: token spans (e.g. matched metric phrases such as "overall sleep score") ignored.
    """
    toks = tokens(question)
    masked = set()
    for i, j in mask:
        masked.update(range(i, j))
    text = " ".join("_" if k in masked else t for k, t in enumerate(toks))
    for tier in (_PERIODS, _BARE_PERIODS):
        best: tuple[int, int, int, str] | None = None
        for pat, fn in tier:
            for m in re.finditer(pat, text):
                w, off = fn(m)
                if w > 0 and (best is None or m.start() < best[0]):
                    best = (m.start(), w, off, m.group(0))
                break
        if best is not None:
            return best[1], best[2], best[3]
    h = _HISTORY.search(text)
    if h:
        return None, 0, h.group(0)
    return DEFAULT_WINDOW, 0, ""


# --------------------------------------------------------------------------- category

#: Precedence order (first category with a matching cue wins; no cue -> Data Retrieval):
#:   1 Metric Relationships (correlate, relationship, relate, link, affect, impact, influence)
#:   2 Anomaly Detection    (unusual, abnormal, anomal-, spike, outlier, sudden)
#:   3 Contextual Queries   (on days when/with, after I/a/my..., when I..., on weekends, during...)
#:   4 Actionable Advice    (how can/should I, should I, tips, advice, ways to, improve/reduce my)
#:   5 Exploratory Analysis (why, do you think, what is going on)
#:   6 Comparative Insight  (compare, vs, than last/usual, improved, guidelines)
#:   7 Trend Analysis       (trend, over time, pattern, go up/down, increase, change, vary)
#:   8 Exploratory Analysis (insights, how is/was my..., how did I sleep, tell me about, stands out)
#:   9 General Knowledge    (what does ... mean, normal/optimal range, "is my X okay", and any
#:                           "what is/are" question that never mentions the asker)
#:  10 Data Retrieval       (how many/much/long, what was my, average, total, did I ...)
#: Rationale: cues naming a structure (two metrics related, an outlier, a condition) are more
#: specific than the opening words; open "why" questions outrank comparisons/trends they mention;
#: plain look-ups are the default. Words inside matched metric phrases are hidden from the cues.
#: The cues themselves are data: ``wag_cli/data/category_cues.toml`` (a new phrasing is a data change).
CATEGORY_CUES_FILE = "category_cues.toml"


@lru_cache(maxsize=1)
def _cue_file() -> dict:
    import tomllib
    from importlib import resources

    return tomllib.loads(resources.files("wag_cli").joinpath("data", CATEGORY_CUES_FILE).read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def category_rules() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``((category, (regex, ...)), ...)`` in precedence order, from :data:`CATEGORY_CUES_FILE`.

    ``ValueError`` if the file names a category outside :data:`CATEGORY_OPENNESS`.
    """
    data = _cue_file()
    rules = tuple((r["category"], tuple(r["cues"])) for r in data["rule"])
    unknown = {c for c, _ in rules} - set(CATEGORY_OPENNESS)
    if unknown:
        raise ValueError(f"{CATEGORY_CUES_FILE}: unknown categories {sorted(unknown)}")
    return rules


_PERSONAL = re.compile(r"\b(my|i|me|mine|myself)\b")


#: Words of a matched metric phrase that stay visible to the classifier ("how long i slept").
_KEEP_IN_MASK = frozenset("how much many long often far well did do i what when my".split())


def classify(question: str, mask: Iterable[tuple[int, int]] = ()) -> tuple[str, str]:
    """``(category, cue)`` by :func:`category_rules` precedence on the normalised question.

    ``mask``: token spans of matched metric phrases; their words are hidden from the cues (so
    "heart rate variability" or "breathing pattern" is not a trend cue), except question words
    such as "how long" in "how long i slept". A "what is/are ..." question that never mentions the
    asker ("my", "I", "me") is General Knowledge unless a higher rule fired.
    No cue -> ``(DEFAULT_CATEGORY, "")``.
    """
    toks = tokens(question)
    hidden = {k for i, j in mask for k in range(i, j) if toks[k] not in _KEEP_IN_MASK}
    text = " ".join("_" if k in hidden else t for k, t in enumerate(toks))
    for category, patterns in category_rules():
        if category == "General Knowledge":
            m = re.search(r"\bwhat (is|are)\b", text)
            if m and not _PERSONAL.search(text):
                return category, m.group(0)
        for pat in patterns:
            m = re.search(pat, text)
            if m:
                return category, m.group(0)
    return DEFAULT_CATEGORY, ""


# --------------------------------------------------------------------------- offline parse


def _check_question(question: str) -> str:
    if question is None or not str(question).strip():
        raise ValueError("empty question")
    return str(question).strip()


def question_shape(question: str, as_of: date, *, metrics: list[str], category: str, window: int | None,
                   offset: int, window_phrase: str = "", model_window: bool = False) -> dict:
    """The period, comparison, intent and display unit of a question (DESIGN.md §8 "Periods").

    ``window``/``offset``/``window_phrase``: the rolling period read so far (``parse_window`` or a
    model reply). An explicit or calendar period (:func:`wag_cli.dates.resolve_period`) replaces it;
    a weekend/weekday split naming no period covers all history; "before/after D" uses D .. as-of.
    A comparison makes the category Comparative Insight unless it is a relationship or an anomaly
    question (what is asked, not its wording). Returns ``{"period", "comparison", "category",
    "intent", "display_unit"}``; ``ValueError`` for an impossible period.
    """
    explicit = resolve_period(question, as_of)
    if explicit is not None:
        period = explicit
    else:
        period = rolling(as_of + timedelta(days=offset), window, window_phrase)
    text = normalise(question)
    cues = _shape_cues()
    overview = not metrics and _matches_any(cues["overview"], text)
    if overview and explicit is None and window is None and window_phrase in cues["overview_not_history"]:
        period = rolling(as_of, DEFAULT_WINDOW)           # "how am I doing overall": across metrics, not all time
    comparison = comparison_periods(question, period, as_of)
    if comparison is not None and comparison[0] == "weekday_split" and explicit is None and not window_phrase \
            and not model_window:
        period = Period(None, as_of, "all days")
        comparison = comparison_periods(question, period, as_of)
    if comparison is not None:
        if comparison[0] == "before_after":
            period = comparison[2]
        elif comparison[0] == "previous":
            period = comparison[1]
        if category not in ("Metric Relationships", "Anomaly Detection"):
            category = "Comparative Insight"
    if overview:
        intent, category = "overview", "Exploratory Analysis"
    elif comparison is not None:
        intent = "comparison"
    elif category == "Trend Analysis":
        intent = "trend"
    elif len(metrics) >= 2 and category in ("Metric Relationships", "Contextual Queries"):
        intent = "relationship"
    elif len(metrics) == 1 and category == "Metric Relationships":
        intent = "influences"
    else:
        intent = "lookup"
    unit = None
    if _matches_any(cues["hours"], text):
        unit = "hours"
    elif _matches_any(cues["minutes"], text):
        unit = "minutes"
    return {"period": period, "comparison": comparison, "category": category, "intent": intent,
            "display_unit": unit}


def _shape_cues() -> dict:
    """The ``[shape]`` table of ``data/category_cues.toml``: overview, overview_not_history, hours, minutes."""
    return _cue_file()["shape"]


def _matches_any(patterns: Iterable[str], text: str) -> bool:
    return any(re.search(p, text) for p in patterns)


def offline_reading(question: str, catalog: dict[str, Metric]) -> dict:
    """The offline matcher's raw reading of a question, before the period is resolved:
    ``{"text" (period words corrected), "corrections", "hits" (:func:`match_metrics`), "window",
    "offset", "window_phrase" (:func:`parse_window`), "category", "cue" (:func:`classify`; cue ""
    = no cue, the default category), "unrecognised" (:func:`wag_cli.dates.unrecognised_period`)}``."""
    # misspelled period words ("febuary", "lst wek") read as the word meant; metric words are kept
    text, corrections = correct_period_words(question, keep=_catalog_words(catalog))
    hits = match_metrics(text, catalog)
    window, offset, window_phrase = parse_window(text, mask=[h["span"] for h in hits])
    category, cue = classify(text, mask=[h["span"] for h in hits])
    return {"text": text, "corrections": corrections, "hits": hits, "window": window, "offset": offset,
            "window_phrase": window_phrase, "category": category, "cue": cue,
            "unrecognised": unrecognised_period(text)}


def not_understood_note(phrase: str, period: Period) -> str:
    """DESIGN.md §11: "'over the holidays' was not understood; this answer covers 2020-01-14 to ..."."""
    return f"'{phrase}' was not understood; this answer covers {period.label + ', ' if period.label else ''}{period.describe()}"


def parse_offline(question: str, as_of: date, catalog: dict[str, Metric] | None = None) -> ParsedQuery:
    """Deterministic QueryParse (no network). See the module docstring; ``ValueError`` if empty or
    for an impossible period ("between March 9 and March 2"). A time expression the period rules do
    not resolve ("over the holidays") is named in ``period_notes`` (DESIGN.md §11)."""
    question = _check_question(question)
    catalog = catalog if catalog is not None else load_catalog()
    r = offline_reading(question, catalog)
    metrics = [h["metric_id"] for h in r["hits"]]
    shape = question_shape(r["text"], as_of, metrics=metrics, category=r["category"], window=r["window"],
                           offset=r["offset"], window_phrase=r["window_phrase"])
    period, category = shape["period"], shape["category"]
    hi = CATEGORY_OPENNESS[category][1]
    matches = [{k: v for k, v in h.items() if k != "span"} for h in r["hits"]]
    return ParsedQuery(
        question=question,
        metrics=metrics,
        window_days=period.window_days,
        reference_day=period.end,
        ref_offset=(period.end - as_of).days,
        openness=hi if shape["intent"] == "overview" else category_openness(category),
        category=category,
        matches=matches,
        source="offline",
        period=period,
        comparison=shape["comparison"],
        intent=shape["intent"],
        display_unit=shape["display_unit"],
        corrections=r["corrections"],
        period_notes=[not_understood_note(r["unrecognised"], period)] if r["unrecognised"] else [],
    )


def _catalog_words(catalog: dict[str, Metric]) -> frozenset[str]:
    """The lowercase words of the catalog's metric names and aliases (never corrected as typos)."""
    return frozenset(w for m in catalog.values() for t in (m.name, *m.aliases) for w in re.findall(r"[a-z]+", t.lower()))


# --------------------------------------------------------------------------- evaluation


def evaluate(rows: Iterable[dict], *, as_of: date = date(2020, 1, 1), catalog: dict[str, Metric] | None = None,
             parser=None) -> dict:
    """Score a parser on labelled rows (``eval/README.md`` fields: q, metrics, window, ref_offset?, type).

    A thin wrapper of :func:`wag_cli.eval.parse_score.evaluate_labelled` (the scoring lives with
    ``wag eval``). Returns ``{"n", "metric_exact", "window_accuracy", "openness_in_range",
    "category_accuracy", "failures"}``; ``parser(question, as_of, catalog)`` defaults to parse_offline.
    """
    from .eval.parse_score import evaluate_labelled

    return evaluate_labelled(rows, as_of=as_of, catalog=catalog if catalog is not None else load_catalog(),
                             parser=parser or parse_offline)
