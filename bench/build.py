"""Benchmark: `dbt build` of the whole project on the real excerpts, from an empty database.

Usage:  python bench/build.py [--data ../shared/data] [--runs 3] [--target duckdb|spark]
Prints the wall time of each run (a fresh `dbt build` process, the way a user runs it) and the
median. Results are written down in bench/RESULTS.md by hand, with the command used.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(REPO.parent / "shared" / "data"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--target", default="duckdb", choices=["duckdb", "spark"],
                    help="spark: dbt build --target spark (local PySpark, WAG_SPARK_MASTER default local[2])")
    args = ap.parse_args()
    dbt = str(Path(sys.executable).with_name("dbt"))
    times = []
    for i in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            env = {**os.environ, "WAG_DB": f"{tmp}/wag.duckdb", "WAG_DATA_DIR": str(Path(args.data).resolve()),
                   "DO_NOT_TRACK": "1", "WAG_SPARK_WAREHOUSE": f"{tmp}/spark-warehouse",
                   "WAG_SPARK_MASTER": os.environ.get("WAG_SPARK_MASTER", "local[2]")}
            t0 = time.perf_counter()
            res = subprocess.run([dbt, "build", "--target", args.target, "--target-path", f"{tmp}/target",
                                  "--log-path", f"{tmp}/logs", "--quiet"], cwd=REPO, env=env, capture_output=True, text=True)
            dt = time.perf_counter() - t0
            if res.returncode != 0:
                sys.exit(f"dbt build failed:\n{res.stdout[-2000:]}{res.stderr[-2000:]}")
            times.append(dt)
            print(f"run {i + 1}: {dt:.1f} s")
    print(f"median dbt build --target {args.target} (empty database, {args.data}): {statistics.median(times):.1f} s")


if __name__ == "__main__":
    main()
