"""Scale benchmark (issue 10): the warehouse on a synthetic population vs the pandas reference.

For each N it generates (or reuses) the population of bench/popgen.py, then in the same run:
* the pandas reference a researcher would write: per-subject and pooled
  ``DataFrame.corr(method="spearman", min_periods=10)`` over all metric pairs;
* ``wag build --wide sim=<file>`` (``dbt build`` of the whole project on that file as a wide source)
  in a fresh process with its own DuckDB file: wall time, peak RSS of the process tree (ru_maxrss of
  the child), per-model times from dbt's run_results.json;
* ``wag_retrieve`` per call on the built warehouse (median of 20 calls over different subjects);
* with ``--alone``: the correlation models rebuilt alone on a copy (``dbt run --full-refresh --threads 1``),
  their seconds without daily_abnormality sharing the two cores as it does in the build;
* the incremental refresh: one new day appended for 10 subjects, then ``wag build`` again (a copy of
  the warehouse; only those subjects recomputed): wall time and its share of the full build; then
  ``wag build`` once more on the same bytes with a new modification time (dbt runs and recomputes
  nothing: the fixed cost under any refresh), and once more untouched (stops before dbt: up to date).

Usage:
    python bench/scale.py --subjects 100 500 [--days 365] [--workdir /tmp/wag_scale] [--json out.json]
                          [--population-as-of exact|snapshot] [--snapshot-months 1|3|...] [--incremental] [--keep]
                          [--alone]

Prints one table per N and the ratios; bench/RESULTS.md records the results with the command.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

HEAVY = ("correlations_individual", "correlations_population", "edge_weights", "int_metric_series",
         "correlations_population_snapshots", "subject_summary", "daily_abnormality", "stg_wide__daily_metrics", "int_metric_values__checked",
         "metric_values", "subject_metric_stats")
# issue 31's correlation models; CORRELATION_MODELS adds their input int_metric_series (the stricter sum)
ISSUE_CORRELATION_MODELS = ("correlations_individual", "correlations_population", "correlations_population_snapshots",
                            "edge_weights")
CORRELATION_MODELS = (*ISSUE_CORRELATION_MODELS, "int_metric_series")


def pandas_reference(csv: Path) -> float:
    """Seconds for per-subject and pooled Spearman over all pairs (min_periods=10), as a researcher would."""
    import pandas as pd

    t0 = time.perf_counter()
    df = pd.read_csv(csv)
    values = df.drop(columns=["date"])
    values.groupby("participant_id").corr(method="spearman", min_periods=10)
    values.drop(columns=["participant_id"]).corr(method="spearman", min_periods=10)
    return time.perf_counter() - t0


def _measure(cmd: list[str], env: dict) -> tuple[float, float, subprocess.CompletedProcess]:
    """Wall seconds and peak RSS (GB) of ``cmd`` run in a wrapper process that reports its child's rusage."""
    wrapper = ("import resource, subprocess, sys, json;"
               "r = subprocess.run(sys.argv[1:], capture_output=True, text=True);"
               "sys.stdout.write(json.dumps({'rc': r.returncode, 'rss_kb': resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,"
               " 'out': r.stdout[-3000:], 'err': r.stderr[-3000:]}))")
    t0 = time.perf_counter()
    res = subprocess.run([sys.executable, "-c", wrapper, *cmd], env=env, capture_output=True, text=True, cwd=REPO)
    wall = time.perf_counter() - t0
    info = json.loads(res.stdout)
    return wall, info["rss_kb"] / 1024 / 1024, info


def build(csv: Path, tmp: Path, population_as_of: str = "exact", threads: int | None = None,
          snapshot_months: int = 1, extra_vars: dict | None = None) -> dict:
    """``wag build --wide sim=<csv> --population-as-of <mode>`` into tmp/wag.duckdb (incremental when that
    file holds an earlier build with the same settings): wall s, peak RSS GB, per-node seconds, the
    refresh line."""
    if threads or snapshot_months != 1 or extra_vars:
        # non-default dbt vars / threads: plain dbt build (wag build passes neither)
        return _dbt_build(csv, tmp, population_as_of, threads, snapshot_months, extra_vars)
    wag = str(Path(sys.executable).with_name("wag"))
    empty = tmp / "no_native_data"
    empty.mkdir(exist_ok=True)
    env = {**os.environ, "WAG_DB": str(tmp / "wag.duckdb"), "WAG_DATA_DIR": str(empty), "DO_NOT_TRACK": "1",
           "COLUMNS": "200"}
    wall, rss_gb, info = _measure([wag, "build", "--wide", f"sim={csv}", "--population-as-of", population_as_of], env)
    if info["rc"] != 0:
        raise SystemExit(f"wag build failed:\n{info['out']}\n{info['err']}")
    refresh = next((ln.strip() for ln in info["out"].splitlines() if ln.startswith(("Incremental:", "Full build", "Up to date"))), "")
    return {"wall_s": wall, "peak_rss_gb": rss_gb, "models": _node_times(REPO / "target" / "run_results.json"),
            "timeline": _timeline(REPO / "target" / "run_results.json"), "refresh": refresh}


def _dbt_build(csv: Path, tmp: Path, population_as_of: str, threads: int | None, snapshot_months: int = 1,
               extra_vars: dict | None = None) -> dict:
    dbt = str(Path(sys.executable).with_name("dbt"))
    empty = tmp / "no_native_data"
    empty.mkdir(exist_ok=True)
    env = {**os.environ, "WAG_DB": str(tmp / "wag.duckdb"), "WAG_DATA_DIR": str(empty), "DO_NOT_TRACK": "1"}
    wide = json.dumps({"wide_sources": [{"dataset": "sim", "path": str(csv)}], "population_as_of": population_as_of,
                       "population_snapshot_months": snapshot_months, **(extra_vars or {})})
    cmd = [dbt, "build", "--target-path", str(tmp / "target"), "--log-path", str(tmp / "logs"), "--quiet",
           "--vars", wide] + (["--threads", str(threads)] if threads else [])
    wall, rss_gb, info = _measure(cmd, env)
    if info["rc"] != 0:
        raise SystemExit(f"dbt build failed:\n{info['out']}\n{info['err']}")
    return {"wall_s": wall, "peak_rss_gb": rss_gb, "models": _node_times(tmp / "target" / "run_results.json"),
            "timeline": _timeline(tmp / "target" / "run_results.json"), "refresh": "full (dbt build)"}


def correlations_alone(csv: Path, db: Path, tmp: Path, population_as_of: str, extra_vars: dict | None = None) -> dict:
    """The correlation models rebuilt alone (``dbt run --full-refresh --threads 1``) on a copy of the
    built warehouse ``db``: per-model seconds without another model sharing the two cores (in the
    build, daily_abnormality runs beside correlations_individual on the other dbt thread)."""
    dbt = str(Path(sys.executable).with_name("dbt"))
    copy = tmp / "alone.duckdb"
    shutil.copyfile(db, copy)
    empty = tmp / "no_native_data"
    empty.mkdir(exist_ok=True)
    env = {**os.environ, "WAG_DB": str(copy), "WAG_DATA_DIR": str(empty), "DO_NOT_TRACK": "1"}
    dbt_vars = json.dumps({"wide_sources": [{"dataset": "sim", "path": str(csv)}], "population_as_of": population_as_of,
                           **(extra_vars or {})})
    cmd = [dbt, "run", "--full-refresh", "--threads", "1", "--quiet", "--target-path", str(tmp / "target_alone"),
           "--log-path", str(tmp / "logs_alone"), "--vars", dbt_vars,
           "--select", *[m for m in CORRELATION_MODELS if m != "int_metric_series"]]
    wall, _, info = _measure(cmd, env)
    if info["rc"] != 0:
        raise SystemExit(f"dbt run of the correlation models failed:\n{info['out']}\n{info['err']}")
    copy.unlink()
    times = _node_times(tmp / "target_alone" / "run_results.json")
    return {"wall_s": wall, "models": {m: t for m, t in times.items() if m in CORRELATION_MODELS}}


def append_day(csv: Path, n_subjects: int = 10) -> None:
    """Append one new day (the last day + 1, the last day's values) for the first ``n_subjects``
    subjects of the wide CSV, in place."""
    import pandas as pd

    df = pd.read_csv(csv)
    last = df["date"].max()
    on_last = df[df["date"] == last]
    first = sorted(on_last["participant_id"].unique())[:n_subjects]   # subjects with a row on the last day
    new = on_last[on_last["participant_id"].isin(first)].copy()
    new["date"] = (pd.Timestamp(last) + pd.Timedelta(days=1)).strftime("%Y-%m-%d")
    pd.concat([df, new]).to_csv(csv, index=False)


def _timeline(run_results: Path, names=HEAVY) -> dict:
    """[start, end] seconds of each of ``names`` in the dbt run, from run_results.json's compile and
    execute timings, counted from the first node's start: which large models ran at the same time on dbt's threads."""
    from datetime import datetime

    results = json.loads(run_results.read_text())["results"]
    spans = {}
    for r in results:
        # compile to execute: the wide form's subject batches run while the model renders (compile)
        phases = [x for x in r.get("timing", []) if x.get("started_at") and x.get("completed_at")]
        if phases:
            spans[r["unique_id"].split(".")[-1]] = [
                min(datetime.fromisoformat(x["started_at"].replace("Z", "+00:00")) for x in phases),
                max(datetime.fromisoformat(x["completed_at"].replace("Z", "+00:00")) for x in phases)]
    if not spans:
        return {}
    t0 = min(a for a, _ in spans.values())
    return {n: [round((a - t0).total_seconds(), 1), round((b - t0).total_seconds(), 1)]
            for n, (a, b) in sorted(spans.items(), key=lambda kv: kv[1][0]) if n in names}


def _span(timeline: dict, names) -> tuple[float | None, list[str]]:
    """Seconds of the union of the ``names`` intervals of a :func:`_timeline`, and the other models of the
    timeline that overlap any of them."""
    spans = sorted(v for k, v in timeline.items() if k in names)
    if not spans:
        return None, []
    total, (cur_a, cur_b) = 0.0, spans[0]
    for a, b in spans[1:]:
        if a > cur_b:
            total, cur_a, cur_b = total + cur_b - cur_a, a, b
        else:
            cur_b = max(cur_b, b)
    total += cur_b - cur_a
    beside = [k for k, (a, b) in timeline.items() if k not in names
              and any(a < y and x < b for x, y in spans)]
    return round(total, 1), beside


def _node_times(run_results: Path) -> dict:
    results = json.loads(run_results.read_text())
    models = {}
    for r in results["results"]:
        uid = r["unique_id"]
        kind, name = uid.split(".")[0], uid.split(".")[-1]
        key = name if kind in ("model", "seed") else f"{kind}:{name}"
        models[key] = r["execution_time"]
    return models


def retrieval_ms(db: Path, n_calls: int = 20) -> dict:
    """Median ms per ``wag_retrieve`` call over ``n_calls`` subjects, at the last day (population from the
    full-history snapshot) and 100 days earlier (as-of: a month-end snapshot, or pooled per query in
    'exact' mode)."""
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    out = {}
    try:
        subjects = [r[0] for r in con.execute(
            f"select distinct subject_id from metric_values order by subject_id limit {n_calls}").fetchall()]
        last = con.execute("select max(day) from metric_values").fetchone()[0]
        con.execute("select * from wag_retrieve(?, ['steps_taken'], ?, 7, 0.8)", [subjects[0], last]).fetchall()
        for label, day in (("last_day", last), ("last_day_minus_100", last - timedelta(days=100))):
            times = []
            for s in subjects:
                t0 = time.perf_counter()
                con.execute("select * from wag_retrieve(?, ['deep_sleep_duration', 'mental_stress'], ?, 7, 0.8)",
                            [s, day]).fetchall()
                times.append((time.perf_counter() - t0) * 1000)
            out[label] = round(statistics.median(times), 1)
    finally:
        con.close()
    return out


def main() -> None:
    from popgen import generate

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--subjects", type=int, nargs="+", default=[100, 500])
    ap.add_argument("--days", type=int, default=365)
    ap.add_argument("--metrics", type=int, default=28)
    ap.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "wag_scale")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--dbt-threads", type=int, default=None,
                    help="dbt threads (models built at once; default: the profile's 2). 1 keeps one large "
                         "model at a time inside DuckDB's memory_limit")
    ap.add_argument("--keep", action="store_true",
                    help="keep each built warehouse as <workdir>/wag_<N>_<mode>.duckdb (for profiling)")
    ap.add_argument("--incremental", action="store_true",
                    help="after the full build, append one new day for 10 subjects and time the incremental wag build")
    ap.add_argument("--population-as-of", choices=["snapshot", "exact"], default="exact",
                    help="dbt var population_as_of (DESIGN.md §6 'As of'): pooled per query (default) or monthly snapshots")
    ap.add_argument("--alone", action="store_true",
                    help="also rebuild the correlation models alone on a copy of the warehouse (one dbt thread)")
    ap.add_argument("--snapshot-months", type=int, default=1,
                    help="dbt var population_snapshot_months: a snapshot every k-th month-end (1 = every one)")
    ap.add_argument("--var", action="append", default=[], metavar="NAME=VALUE",
                    help="another dbt var (a number or text), e.g. --var wide_max_bytes=5e8; repeatable (plain dbt build)")
    args = ap.parse_args()
    extra = {}
    for item in args.var:
        name, _, value = item.partition("=")
        try:
            extra[name] = float(value) if any(c in value for c in ".eE") else int(value)
        except ValueError:
            extra[name] = value
    args.workdir.mkdir(parents=True, exist_ok=True)
    out = []
    for n in args.subjects:
        csv = args.workdir / f"pop{n}_{args.days}d_{args.metrics}m.csv"
        if not csv.exists():
            generate(n, args.days, args.metrics).to_csv(csv, index=False)
        pandas_s = pandas_reference(csv)
        with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
            tmp = Path(tmp)
            source = tmp / csv.name        # a copy: the incremental step appends to it, the cached file stays
            shutil.copyfile(csv, source)
            b = build(source, tmp, args.population_as_of, args.dbt_threads, args.snapshot_months, extra)
            ret_ms = retrieval_ms(tmp / "wag.duckdb")
            alone = correlations_alone(source, tmp / "wag.duckdb", tmp, args.population_as_of, extra) if args.alone else None
            inc = None
            if args.incremental:
                append_day(source, 10)
                inc = build(source, tmp, args.population_as_of, args.dbt_threads, args.snapshot_months, extra)
                # the same bytes with a new modification time: dbt runs and finds nothing to recompute,
                # the fixed cost of any wag build that runs dbt (start, parse, ~300 nodes and their data
                # tests), the floor under every incremental refresh
                st = source.stat()
                os.utime(source, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
                noop = build(source, tmp, args.population_as_of, args.dbt_threads, args.snapshot_months, extra)
                # untouched: wag build sees the same files and settings and stops before dbt
                up_to_date = build(source, tmp, args.population_as_of, args.dbt_threads, args.snapshot_months, extra)
            if args.keep:
                shutil.move(tmp / "wag.duckdb", args.workdir / f"wag_{n}_{args.population_as_of}.duckdb")
        corr_s = sum(b["models"].get(m, 0.0) for m in CORRELATION_MODELS)
        issue_s = sum(b["models"].get(m, 0.0) for m in ISSUE_CORRELATION_MODELS)
        span_s, beside = _span(b["timeline"], CORRELATION_MODELS)
        row = {"subjects": n, "days": args.days, "metrics": args.metrics, "population_as_of": args.population_as_of,
               "dbt_vars": extra,
               "snapshot_months": args.snapshot_months,
               "dbt_threads": args.dbt_threads or 2,
               "pandas_s": round(pandas_s, 1),
               "build_wall_s": round(b["wall_s"], 1), "peak_rss_gb": round(b["peak_rss_gb"], 2),
               "correlation_models_s": round(corr_s, 1),
               "correlation_models_each_s": {m: round(b["models"].get(m, 0.0), 2) for m in CORRELATION_MODELS},
               "ratio_correlations_vs_pandas": round(pandas_s / corr_s, 2) if corr_s else None,
               # the issue's acceptance measure: the same sum without int_metric_series
               "correlation_models_issue_s": round(issue_s, 1),
               "ratio_correlations_issue_vs_pandas": round(pandas_s / issue_s, 2) if issue_s else None,
               # the build's wall time while any correlation model ran (the models overlap each other
               # on dbt's two threads, so the sum above counts those seconds twice), and the other
               # large models that ran during it
               "correlation_models_span_s": span_s,
               "ratio_correlations_span_vs_pandas": round(pandas_s / span_s, 2) if span_s else None,
               "heavy_models_beside_correlations": beside,
               "ratio_build_vs_pandas": round(b["wall_s"] / pandas_s, 2),
               "retrieve_ms": ret_ms,
               **({"correlation_models_alone_s": round(sum(alone["models"].values()), 1),
                   "correlation_models_alone_each_s": {m: round(v, 2) for m, v in alone["models"].items()},
                   "ratio_correlations_alone_vs_pandas": round(pandas_s / sum(alone["models"].values()), 2)}
                  if alone else {}),
               "refresh": b["refresh"],
               **({"incremental_wall_s": round(inc["wall_s"], 1),
                   "incremental_share_of_full": round(inc["wall_s"] / b["wall_s"], 3),
                   "incremental_refresh": inc["refresh"],
                   "incremental_models_s": {k: round(v, 1) for k, v in sorted(inc["models"].items(), key=lambda kv: -kv[1])[:8]},
                   "unchanged_rebuild_wall_s": round(noop["wall_s"], 1),
                   "unchanged_rebuild_share_of_full": round(noop["wall_s"] / b["wall_s"], 3),
                   "unchanged_rebuild_refresh": noop["refresh"],
                   "unchanged_rebuild_nodes": len(noop["models"]),
                   "unchanged_rebuild_node_s_sum": round(sum(noop["models"].values()), 1),
                   "up_to_date_wall_s": round(up_to_date["wall_s"], 1),
                   "up_to_date_refresh": up_to_date["refresh"]}
                  if inc else {}),
               "models_s": {k: round(v, 1) for k, v in sorted(b["models"].items(), key=lambda kv: -kv[1])[:15]},
               "timeline_s": b["timeline"]}
        out.append(row)
        print(json.dumps(row, indent=2))
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
