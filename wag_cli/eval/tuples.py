"""Reading the evaluation's query tuples (DESIGN.md §10) from the warehouse.

The tuples are sampled in SQL by the dbt model ``models/eval/eval_query_tuples.sql`` (seed
``eval_seed``, size ``eval_n_tuples``, both dbt vars). Its ``sample_order`` interleaves single- and
multi-metric tuples and walks the strata round by round, so the first ``n`` rows are a smaller
sample of the same stratified design; :func:`load_tuples` takes such a prefix.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import duckdb

from ..db import fetch_dicts
from ..errors import UsageError


@dataclass(frozen=True)
class QueryTuple:
    """One row of ``eval_query_tuples``: the gold fields a question is generated from.

    ``window_days`` None = all days up to ``reference_day``; ``abnormal_level`` None for 'multi'.
    """

    tuple_id: str
    kind: str
    dataset: str
    subject_id: str
    metrics: tuple[str, ...]
    reference_day: date
    window_days: int | None
    abnormal_level: str | None
    seed: int
    sample_order: int

    @property
    def window_label(self) -> str:
        return "all" if self.window_days is None else str(self.window_days)


def load_tuples(con: duckdb.DuckDBPyConnection, n: int | None = None) -> list[QueryTuple]:
    """The first ``n`` tuples by ``sample_order`` (all when ``n`` is None).

    Raises :class:`UsageError` when the model was not built, or ``n`` exceeds what it holds (the
    fix is to rebuild with a larger ``eval_n_tuples``).
    """
    try:
        rows = fetch_dicts(con, "select * from eval_query_tuples order by sample_order")
    except duckdb.CatalogException:
        raise UsageError("the warehouse has no eval_query_tuples table; run `wag build` (it builds models/eval)") from None
    if not rows:
        raise UsageError("eval_query_tuples is empty: no selected participant has enough history (see participant_selection)")
    if n is not None:
        if n < 1:
            raise UsageError("--n must be at least 1")
        if n > len(rows):
            raise UsageError(
                f"--n {n} exceeds the {len(rows)} tuples built; rebuild with a larger sample, e.g. "
                f"`dbt build --select eval_query_tuples --vars '{{eval_n_tuples: {n}}}'`"
            )
        rows = rows[:n]
    return [
        QueryTuple(
            tuple_id=r["tuple_id"], kind=r["kind"], dataset=r["dataset"], subject_id=r["subject_id"],
            metrics=tuple(r["metrics"]), reference_day=r["reference_day"], window_days=r["window_days"],
            abnormal_level=r["abnormal_level"], seed=int(r["seed"]), sample_order=int(r["sample_order"]),
        )
        for r in rows
    ]
