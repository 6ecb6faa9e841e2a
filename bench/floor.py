"""Lower bound of the correlation chain on DuckDB (issue 10): the window sorts any exact Spearman needs.

Historical (issue 31 removed ``int_edge_paired_values``): it needs a warehouse built before that
change. On a warehouse kept by ``bench/scale.py --keep`` this times, on its ``int_edge_paired_values`` (the
paired days of every prior edge, already materialised), the least work an exact Spearman over
pairwise-complete days (DESIGN.md §5) has to do, with none of the rest of the model:

* individual: two rank windows per (subject, edge) -- one per end, since the ranks are over the days
  both ends have -- and a Pearson correlation of the ranks per group;
* pooled, full history only: the same two windows per (dataset, edge), or the value-count ranks
  (running counts over each edge's distinct values, joined back), whichever is faster;

with ``rank()`` (no average ranks for ties, no validity rules, no as-of snapshots, no table written).
Their sum is a floor under ``correlations_individual + correlations_population(_snapshots)``; the
pandas reference of scale.py (which also reads the CSV and covers every pair, not only edges) is
timed in the same run on the same population file.

Usage:
    python bench/floor.py --db /tmp/scale/wag_500_snapshot.duckdb --csv /tmp/scale/pop500_365d_28m.csv
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

def _two_rank_windows(group: str) -> str:
    """Two rank() windows (one per end) per ``group`` and a Pearson correlation of the ranks per group."""
    return f"""
        select count(*), sum(c) from (
            select {group}, corr(ra, rb) as c from (
                select {group},
                       rank() over (partition by {group} order by value_a) as ra,
                       rank() over (partition by {group} order by value_b) as rb
                from int_edge_paired_values)
            group by {group})"""


QUERIES = {
    "individual_two_rank_windows": _two_rank_windows("subject_key, edge_key"),
    "pooled_two_rank_windows": _two_rank_windows("dataset, edge_key"),
    # the value-count method of wag_pooled_rank_method for tied data (average ranks from a running
    # count over each edge's distinct values, joined back): the cheaper of the two where values repeat
    "pooled_value_count_ranks": """
        with counts_a as (
            select dataset, edge_key, value_a as v, count(*) as c from int_edge_paired_values group by all),
        counts_b as (
            select dataset, edge_key, value_b as v, count(*) as c from int_edge_paired_values group by all),
        ranks_a as (
            select dataset, edge_key, v,
                   sum(c) over (partition by dataset, edge_key order by v) - (c - 1) / 2.0 as r from counts_a),
        ranks_b as (
            select dataset, edge_key, v,
                   sum(c) over (partition by dataset, edge_key order by v) - (c - 1) / 2.0 as r from counts_b)
        select count(*), sum(c) from (
            select p.dataset, p.edge_key, corr(a.r, b.r) as c
            from int_edge_paired_values as p
            inner join ranks_a as a on a.dataset = p.dataset and a.edge_key = p.edge_key and a.v = p.value_a
            inner join ranks_b as b on b.dataset = p.dataset and b.edge_key = p.edge_key and b.v = p.value_b
            group by p.dataset, p.edge_key)""",
}


def main() -> None:
    import duckdb

    from scale import pandas_reference

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", type=Path, required=True, help="a warehouse kept by bench/scale.py --keep")
    ap.add_argument("--csv", type=Path, required=True, help="the population file it was built from")
    ap.add_argument("--memory-limit", default="3GB")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()

    con = duckdb.connect(str(args.db), read_only=True)
    con.execute(f"set memory_limit = '{args.memory_limit}'")
    con.execute(f"set threads = {args.threads}")
    con.execute("set preserve_insertion_order = false")
    out = {"paired_rows": con.execute("select count(*) from int_edge_paired_values").fetchone()[0]}
    for name, sql in QUERIES.items():
        t0 = time.perf_counter()
        con.execute(sql).fetchall()
        out[f"{name}_s"] = round(time.perf_counter() - t0, 2)
    con.close()
    pooled = min(out["pooled_two_rank_windows_s"], out["pooled_value_count_ranks_s"])
    out["floor_s"] = round(out["individual_two_rank_windows_s"] + pooled, 2)   # individual + the cheaper pooled
    out["pandas_s"] = round(pandas_reference(args.csv), 2)
    out["best_possible_ratio_pandas_over_chain"] = round(out["pandas_s"] / out["floor_s"], 2)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
