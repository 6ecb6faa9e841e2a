"""Oversampling candidates for Exp-G / Exp-L (DESIGN.md §10): ``wag eval queries --gl-n N``.

The main experiment takes the first ``--n`` tuples. Exp-G and Exp-L need ``N`` single-metric queries
each whose weightings retrieve pairwise distinct neighbours, balanced over datasets; the first ``--n``
tuples rarely hold that many. :func:`oversample` examines the main set's single-metric questions
first, then the single-metric tuples beyond ``--n`` in ``sample_order`` (their categories dealt among
themselves by the same seeded rule, so the main set is unchanged), until each experiment has its share
per dataset or the tuples run out. Only the extra tuples that were selected get a question (QueryGen);
they are stored with ``in_main = false``.
"""

from __future__ import annotations

from .querygen import assign_categories, generate, openness_for
from .selection import WEIGHTING_EXPERIMENTS, select_queries


def oversample(con, main_rows: list[dict], all_tuples: list, n: int, *, seed: int, catalog, client=None,
               progress=None) -> tuple[list[dict], dict[str, list]]:
    """``(extra_rows, {experiment: verdicts})``: the questions generated for the selected extra
    tuples (``in_main`` false) and each experiment's verdicts keyed by query id."""
    main_ids = {r["tuple_id"] for r in main_rows}
    extras = [t for t in all_tuples if t.kind == "single" and t.tuple_id not in main_ids]
    cats = assign_categories(extras, seed)
    extra_cands = [{"tuple_id": t.tuple_id, "kind": t.kind, "dataset": t.dataset, "subject_id": t.subject_id,
                    "metrics": list(t.metrics), "reference_day": t.reference_day, "window_days": t.window_days,
                    "openness": openness_for(cats[t.tuple_id], seed, t.tuple_id)} for t in extras]
    candidates = list(main_rows) + extra_cands
    verdicts = {}
    task = progress.add_task("Exp-G/L selection", total=None) if progress is not None else None
    for exp in WEIGHTING_EXPERIMENTS:
        verdicts[exp] = select_queries(con, candidates, exp, n,
                                       on_done=(lambda _q: progress.advance(task)) if progress is not None else None)
    wanted = {v.query_id for vs in verdicts.values() for v in vs if v.selected}
    chosen = [t for t in extras if t.tuple_id in wanted]
    extra_rows = generate(chosen, seed=seed, catalog=catalog, client=client,
                          categories={t.tuple_id: cats[t.tuple_id] for t in chosen}) if chosen else []
    for r in extra_rows:
        r["in_main"] = False
    by_tuple = {r["tuple_id"]: r["query_id"] for r in extra_rows}
    main_qids = {r["query_id"] for r in main_rows}
    for vs in verdicts.values():
        # an extra candidate that was not selected has no question: it is kept (counted as examined)
        # under 'tuple:<tuple_id>'
        for v in vs:
            v.query_id = by_tuple.get(v.query_id) or (v.query_id if v.query_id in main_qids else f"tuple:{v.query_id}")
    return extra_rows, verdicts
