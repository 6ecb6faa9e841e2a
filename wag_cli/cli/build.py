"""`wag build` and `wag demo`: run dbt into the warehouse and print what it holds afterwards."""

from __future__ import annotations

import os
import re
from pathlib import Path
from enum import Enum
from typing import Annotated, Optional

import typer
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ..errors import UsageError, WagError
from .apps import app
from .output import console, err_console, failures


def _build_and_summarise(data_dir: Path, wide_sources: list[dict] | None = None, hint: str | None = None,
                         engine: str = "duckdb", full_refresh: bool = False, settings: dict | None = None) -> None:
    from ..build import data_source_text, run_build, spark_unread_inputs, stored_data_source
    from ..paths import db_path
    from ..summary import apple_health_summary, rejected_summary, warehouse_summary, withheld_summary

    previous = stored_data_source(db_path()) if engine == "duckdb" else None
    current = data_source_text(data_dir, wide_sources)
    if previous and previous != current:
        # a plain `wag build` after one on other data replaces that warehouse: say so before it does
        console.print(f"Note: the warehouse was last built from {previous}; this build reads {current} "
                      "and replaces its tables (set WAG_DATA_DIR or --data-dir to keep the other data)",
                      style="yellow", markup=False, highlight=False)
    if engine == "spark" and (unread := spark_unread_inputs(data_dir)):
        # issue 28: their readers are dbt Python models, which dbt-spark runs only on Databricks
        console.print(f"Note: a Spark build does not read {' or '.join(unread)}: those readers are "
                      "DuckDB-only (`wag build` without --engine spark reads them)",
                      style="yellow", markup=False, highlight=False)
    done = {"n": 0}
    with console.status("dbt build: starting…") as status:
        def on_node(name: str, node_status: str) -> None:
            done["n"] += 1
            status.update(f"dbt build: {done['n']} nodes done · last: {name} ({node_status})")

        result = run_build(data_dir, wide_sources=wide_sources, on_node=on_node, engine=engine,
                           full_refresh=full_refresh, settings=settings)
    counts = ", ".join(f"{k} {v}" for k, v in sorted(result.status_counts.items()))
    if not result.success:
        for name, msg in result.failures[:8]:
            err_console.print(f"[red]✗ {escape(name)}[/]: {escape(msg)}", highlight=False, soft_wrap=True)
        raise WagError(
            f"dbt build failed ({counts}); the tables of the previous successful build are unchanged"
        )
    r = result.refresh
    if r and r["mode"] == "unchanged":
        console.print("Up to date: no data file and no setting changed since the last complete build, so "
                      "nothing was recomputed (`wag build --full-refresh` rebuilds everything)")
    else:
        console.print(f"[green]dbt build passed[/] ({result.n_nodes} nodes: {counts})")
    if r and r["mode"] == "incremental":
        names = ", ".join(r["changed_datasets"]) or "none"
        n = r["subjects"]
        console.print(f"Incremental: {r['changed_subjects']} of {n} subject{'' if n == 1 else 's'} had new or changed "
                      f"rows and {'was' if r['changed_subjects'] == 1 else 'were'} recomputed, the others kept; "
                      f"population snapshots refreshed for: {names} (`wag build --full-refresh` rebuilds everything)")
    elif r and r["mode"] == "full":
        n = r["subjects"]
        why = {"settings": " because the settings differ from the last build's (dbt vars, options such as "
                           "--population-as-of, or project files)",
               "full_refresh": " (--full-refresh)"}.get(r.get("reason"), "")
        console.print(f"Full build{why}: {'the one subject' if n == 1 else f'all {n} subjects'} computed (the next "
                      "`wag build` with the same data folder and settings recomputes only subjects whose rows change)")
    summary = warehouse_summary()
    table = Table(title="Warehouse summary (metric_values)", caption=hint)
    for col in ("dataset", "subjects", "metrics", "days", "rows", "first day", "last day"):
        table.add_column(col, justify="right" if col in ("subjects", "metrics", "days", "rows") else "left")
    for r in summary:
        table.add_row(r["dataset"], str(r["n_subjects"]), str(r["n_metrics"]), str(r["n_days"]),
                      f"{r['n_rows']:,}", str(r["first_day"]), str(r["last_day"]))
    console.print(table)
    withheld = withheld_summary()
    if withheld:
        parts = "; ".join(f"{r['dataset']} {r['n_values']:,} ({r['reason_kind']})" for r in withheld)
        console.print(f"{sum(r['n_values'] for r in withheld):,} values withheld from metric_values: {parts} "
                      "(`wag sql \"select * from metric_values_rejected\"` lists each with its reason)",
                      highlight=False, markup=False)
    rejected = rejected_summary()
    if rejected:
        total = sum(r["n_records"] for r in rejected)
        rt = Table(title=f"{total} rejection{'' if total == 1 else 's'} quarantined (raw records or fields not "
                         "used; `wag sql \"select * from raw_rejected\"` shows each with its text)")
        for col in ("file", "reason", "records", "first at"):
            rt.add_column(col, justify="right" if col == "records" else "left")
        for r in rejected:
            rt.add_row(Text(r["file"]), Text(r["reason"]), str(r["n_records"]), Text(r["first_locator"]))
        console.print(rt)
    for r in apple_health_summary():
        # issue 28: what was done with each Apple Health export, and the record types not read
        what = (f"{r['records']:,} records" if r["status"] == "read" else (r["note"] or r["status"]))
        line = f"Apple Health {r['subject_id']}: {r['file']}: {what}"
        if r["doctype"] and r["doctype"] != "none":
            line += f"; document type declaration {r['doctype']} (ignored, never parsed)"
        if r["external_entities"]:
            line += (f"; it declares external entities {r['external_entities']}: not read, their "
                     f"{r['skipped_entity_refs']} reference(s) in content skipped, in attributes left empty")
        if r["unmapped_types"]:
            line += f"; record types not read (no metric): {r['unmapped_types']}"
        console.print(line, highlight=False, markup=False)


class PopulationAsOf(str, Enum):
    """dbt var population_as_of (dbt_project.yml; DESIGN.md §6 "As of")."""

    exact = "exact"
    snapshot = "snapshot"


@app.command()
def build(
    data_dir: Annotated[Optional[Path], typer.Option(
        "--data-dir", help="Raw data folder (pmdata/, lifesnaps/, globem/, ifh_affect/). Default: $WAG_DATA_DIR or demo_data/.")] = None,
    wide: Annotated[Optional[list[str]], typer.Option(
        "--wide", help="A wide daily CSV as NAME=PATH (one row per participant-day); repeatable.")] = None,
    engine: Annotated[str, typer.Option(
        "--engine", help="duckdb (default) or spark: dbt build --target spark (pip install -e \".\\[spark]\"), "
                         "then the warehouse file is read from Spark's Parquet tables.")] = "duckdb",
    full_refresh: Annotated[bool, typer.Option(
        "--full-refresh", help="Rebuild every table from scratch instead of recomputing only the subjects whose "
                               "rows changed since the last build (the default when the settings are unchanged).")] = False,
    population_as_of: Annotated[Optional[PopulationAsOf], typer.Option(
        "--population-as-of", help="exact (default): as-of queries pool the dataset's days <= t in each query "
                                   "(DESIGN.md §6). snapshot: the build stores month-end snapshots and queries read "
                                   "the last one <= t (faster queries on large populations, longer builds).")] = None,
) -> None:
    """Run dbt seed + build (models, data tests, unit tests) into the warehouse."""
    from ..paths import data_dir as default_data_dir

    with failures():
        root = data_dir or default_data_dir()
        origin = ("--data-dir" if data_dir else "WAG_DATA_DIR" if os.environ.get("WAG_DATA_DIR")
                  else "default: the demo folder; set WAG_DATA_DIR or --data-dir for your data")
        if not root.is_dir() and not wide:
            raise UsageError(f"data folder {root} does not exist; set WAG_DATA_DIR or pass --data-dir "
                             "(or run `wag demo` for synthetic data)")
        console.print(f"Raw data: {root} ({origin})")
        sources = []
        for item in wide or []:
            name, sep, path = item.partition("=")
            if not sep or not name or not path:
                raise UsageError(f"--wide {item!r}: expected NAME=PATH, e.g. --wide mydata=~/export.csv")
            if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
                raise UsageError(f"--wide {item!r}: NAME becomes the dataset name and must be lower-case "
                                 "letters, digits and _, starting with a letter (e.g. my_export)")
            p = Path(path).expanduser()
            if not p.is_file():
                raise UsageError(f"--wide {item!r}: no file at {p}")
            sources.append({"dataset": name, "path": str(p)})
        settings = {"population_as_of": population_as_of.value} if population_as_of else None
        _build_and_summarise(root, sources or None, engine=engine, full_refresh=full_refresh, settings=settings)


@app.command()
def demo(
    seed: Annotated[int, typer.Option(help="Random seed of the synthetic data.")] = 7,
    days: Annotated[int, typer.Option(help="Days per subject.")] = 120,
) -> None:
    """Write deterministic synthetic data (PMData and LifeSnaps layouts) and build the warehouse on it."""
    from ..demo import write_demo_data
    from ..paths import demo_dir

    with failures():
        out = demo_dir()
        info = write_demo_data(out, seed=seed, days=days)
        n_subj = len(info.get("subjects", [])) if isinstance(info, dict) else "?"
        console.print(f"Demo data written to {out} ({n_subj} subjects, {days} days each)")
        _build_and_summarise(out, hint='next: wag ask "How did I sleep this week?" --subject pmdata:demo01')
