"""QueryParse (DESIGN.md §8): question -> (metrics M^q, window k^q, reference day t^q, openness eta).

Two paths, same result type (:class:`ParsedQuery`):

* :func:`parse_offline` — deterministic, no network. Metrics come from matching the catalog's ids,
  names and aliases (DESIGN.md §9) against normalised n-grams of the question (exact phrases first,
  longest match wins, then a calibrated typo-tolerant fuzzy match, rapidfuzz); the window from
  period phrases (conventions of ``eval/README.md``); the question category from cue phrases with a
  fixed precedence (:func:`category_rules`, cues in ``data/category_cues.toml``); openness = midpoint of the category's range (§10).
* with a model: :func:`wag_cli.query.model.parse` starts from this offline reading and lets the model
  correct it where the offline matcher is unsure (DESIGN.md §8 "QueryParse with a model"); the period
  always comes from the rules here.

Units: ``window_days`` in days (``None`` = the whole history, shown as ``"all"``); ``ref_offset`` in
days relative to the as-of day (``-1`` = yesterday); ``openness`` in [0, 1].
Errors: an empty/whitespace question raises ``ValueError("empty question")``. A question naming no
known metric is not an error here: ``metrics`` is ``[]`` and the CLI reports it.

Modules: :mod:`.lexicon` (normalisation and the word lists of ``data/lexicon.toml``), :mod:`.metrics`
(catalog matching), :mod:`.shortlist` and :mod:`.embeddings` (the model path's candidates and
embedding matches), :mod:`.periods` (windows, calendar periods, comparisons), :mod:`.shape`
(category and intent), :mod:`.parsed` (:class:`~.parsed.ParsedQuery`), :mod:`.offline` (the
deterministic parse) and :mod:`.model` (the model's corrections of it). The package imports nothing
at load time; import from the module that defines a name.
"""
