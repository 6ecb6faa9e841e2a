"""Benchmark: `wag ask --offline --json` as a whole process, and the retrieval query alone.

Usage:  python bench/ask.py [--db wag.duckdb] [--runs 15]
The warehouse must be built from the real excerpts first, e.g.
    WAG_DATA_DIR=../shared/data WAG_DB=/tmp/wag_bench.duckdb wag build
    python bench/ask.py --db /tmp/wag_bench.duckdb
Targets (issues 4, 8): retrieval query (global weights as of the reference day) < 50 ms, whole offline `wag ask` < 1.5 s on a 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

import duckdb

QUESTION = "Why am I so tired lately even though I sleep enough?"
SUBJECT = "pmdata:p01"
AS_OF = "2020-01-20"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", default=os.environ.get("WAG_DB", "wag.duckdb"))
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    db = Path(args.db).resolve()

    # 1. the retrieval query alone: wag_retrieve + the node data query, in one warm connection
    from wag_cli.retrieve import _sql
    from wag_cli.settings import RetrievalSettings

    con = duckdb.connect(str(db), read_only=True)
    params = {"subject": SUBJECT, "metrics": ["mental_fatigue", "total_sleep_duration"],
              "ref_day": date.fromisoformat(AS_OF), "window_days": 7, "eta": 0.85,
              **RetrievalSettings.from_project().macro_params()}
    retrieve_sql = _sql("retrieve.sql")
    con.execute(retrieve_sql, params).fetchall()  # warm-up
    t_macro = []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        con.execute(retrieve_sql, params).fetchall()
        t_macro.append(time.perf_counter() - t0)
    con.close()

    # 2. the whole CLI process, offline
    wag = str(Path(sys.executable).with_name("wag"))
    env = {**os.environ, "WAG_DB": str(db)}
    env.pop("OPENAI_API_KEY", None)
    t_cli = []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        res = subprocess.run([wag, "ask", QUESTION, "--subject", SUBJECT, "--as-of", AS_OF, "--offline", "--json"],
                             env=env, capture_output=True, text=True)
        t_cli.append(time.perf_counter() - t0)
        if res.returncode != 0:
            sys.exit(f"wag ask failed: {res.stdout}{res.stderr}")
    print(f"retrieval query (wag_retrieve + joins), median of {args.runs}: {statistics.median(t_macro) * 1000:.1f} ms")
    print(f"whole `wag ask --offline --json` process, median of {args.runs}: {statistics.median(t_cli):.2f} s")


if __name__ == "__main__":
    main()
