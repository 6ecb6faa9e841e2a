"""Which queries human raters see (DESIGN.md §10 "Human evaluation"; paper: 100 per experiment).

Per experiment, the candidates are the non-gold queries answered by every condition stored for that
experiment (``sql/human_candidates.sql``; the conditions are read from ``eval_answers``, never from a
fixed list), sorted by query id; ``random.Random(f"{seed}:{experiment}").sample`` draws ``n`` of them
(all when fewer qualify), and the draw's order is the order raters see them in. The sample is stored
in ``eval_human_sample`` with the conditions shown.

A stored sample is kept: drawing again with the same ``n`` and seed is a no-op; another draw needs
``replace=True`` (rankings already stored stay in ``eval_human_rankings``, keyed by query).
"""

from __future__ import annotations

import random
from importlib import resources

import duckdb

from ..errors import UsageError
from .run import EXPERIMENTS


def _sql(name: str) -> str:
    return resources.files("wag_cli.eval").joinpath("sql", name).read_text(encoding="utf-8")


def candidates(con: duckdb.DuckDBPyConnection, experiment: str) -> tuple[list[str], list[str]]:
    """``(query_ids, conditions)``: the queries of ``experiment`` a rater can be shown (§10) and the
    conditions they were all answered by (in :data:`EXPERIMENTS` order, others after by name)."""
    rows = con.execute(_sql("human_candidates.sql"), {"experiment": experiment}).fetchall()
    order = [c for c, _method, _rank_by in EXPERIMENTS.get(experiment, ())]
    conditions = sorted(rows[0][1], key=lambda c: (order.index(c) if c in order else len(order), c)) if rows else []
    return [r[0] for r in rows], conditions


def stored_experiments(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Experiments with answers in ``eval_answers``, in :data:`EXPERIMENTS` order, others after."""
    names = [r[0] for r in con.execute("select distinct experiment from eval_answers").fetchall()]
    known = list(EXPERIMENTS)
    return sorted(names, key=lambda e: (known.index(e) if e in known else len(known), e))


def draw_sample(con: duckdb.DuckDBPyConnection, *, n: int = 100, seed: int = 0,
                experiments: list[str] | None = None, replace: bool = False) -> list[dict]:
    """Draw and store the human-evaluation sample of each experiment (DESIGN.md §10).

    ``experiments`` None = every experiment with stored answers. Returns one dict per experiment:
    ``{"experiment", "candidates", "sampled", "conditions", "status": 'drawn' | 'kept'}``. Raises
    :class:`UsageError` for n < 1, when no experiment has answers, or when a different sample is
    stored and ``replace`` is False.
    """
    if n < 1:
        raise UsageError(f"--n {n}: need at least 1 query per experiment")
    exps = experiments or stored_experiments(con)
    if not exps:
        raise UsageError("no answers stored yet: run `wag eval queries` and `wag eval run` first")
    out = []
    for exp in exps:
        ids, conditions = candidates(con, exp)
        if not ids:
            raise UsageError(f"experiment {exp!r} has no query answered by two or more conditions "
                             "(run `wag eval run --experiment " + exp + "`)")
        drawn = random.Random(f"{seed}:{exp}").sample(ids, min(n, len(ids)))
        have = con.execute("select query_id, seed, conditions from eval_human_sample where experiment = ?"
                           " order by sample_order", [exp]).fetchall()
        if have:
            same = [r[0] for r in have] == drawn and all(r[1] == seed and list(r[2]) == conditions for r in have)
            if same:
                out.append({"experiment": exp, "candidates": len(ids), "sampled": len(drawn),
                            "conditions": conditions, "status": "kept"})
                continue
            if not replace:
                raise UsageError(f"experiment {exp!r} already has a human-evaluation sample of {len(have)} queries "
                                 f"(seed {have[0][1]}); pass --replace to draw another")
        con.execute("begin transaction")
        try:
            con.execute("delete from eval_human_sample where experiment = ?", [exp])
            con.executemany("insert into eval_human_sample (experiment, query_id, sample_order, seed, conditions)"
                            " values (?, ?, ?, ?, ?)",
                            [(exp, q, i, seed, conditions) for i, q in enumerate(drawn, start=1)])
            con.execute("commit")
        except BaseException:
            con.execute("rollback")
            raise
        out.append({"experiment": exp, "candidates": len(ids), "sampled": len(drawn), "conditions": conditions,
                    "status": "drawn"})
    return out
