"""Answering a question from a retrieved subgraph (DESIGN.md §8, §11; the paper's answer step).

What an answer must contain is one definition, the question's analysis
(:mod:`wag_cli.analysis`, built from SQL): the offline answerer renders it and the model gets the
same dict in its data block. The modules:

* :mod:`.wording` — numbers, units, labels and fixed phrases (a leaf; word lists in
  ``wag_cli/data/answer_text.toml``);
* :mod:`.findings` — the §11 findings of ``sql/findings.sql`` as typed rows;
* :mod:`.verdict` — the opening lines worded from the findings (the finding first);
* :mod:`.text` — the :class:`~.text.Answer`, a metric's window against its usual level, daily values;
* :mod:`.render` — per-intent lines (relationships, influences, trends, comparisons, overview);
* :mod:`.offline` — the deterministic answer: verdict, asked metrics, related metrics that changed,
  guidance that fits the subject's instruments;
* :mod:`.context` — the compact tables a model reads, within a token budget;
* :mod:`.model` — the answer with a language model, falling back to the offline answer.

The package imports nothing at load time; import from the module that defines a name.
"""
