"""The `wag` command line (Typer). A thin layer: it parses options, calls the modules that do the
work, prints Rich tables or one JSON object, and turns every :class:`WagError` into a one-line
message and a non-zero exit code."""

from __future__ import annotations

import json
import os
import re
import sys
from datetime import date, datetime
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from .errors import UsageError, WagError

app = typer.Typer(
    name="wag",
    help="WAG warehouse: ask questions about wearable data through a personal knowledge graph.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
graph_app = typer.Typer(help="Inspect, grow, compare and plot the knowledge graph.", no_args_is_help=True)
app.add_typer(graph_app, name="graph")

from .eval.app import eval_app  # noqa: E402
from .eval import commands  # noqa: E402,F401  (registers the `wag eval` commands)

app.add_typer(eval_app, name="eval")

def _console(stderr: bool = False) -> Console:
    """Rich console; when output is piped (no terminal, no COLUMNS) tables get 160 columns, not 80."""
    stream = sys.stderr if stderr else sys.stdout
    if not stream.isatty() and "COLUMNS" not in os.environ:
        return Console(stderr=stderr, width=160)
    return Console(stderr=stderr)


console = _console()
err_console = _console(stderr=True)


def _fail(exc: WagError, as_json: bool = False) -> None:
    """One line on stderr and the error's exit code; with --json also {"error", "exit_code"} on stdout."""
    if as_json:
        _print_json({"error": str(exc), "exit_code": exc.exit_code})
    # the message is text, not markup: "[spark]" or a subject id with brackets must print as written
    err_console.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
    raise typer.Exit(exc.exit_code)


def _json_default(obj):
    if isinstance(obj, (date, datetime)):
        return obj.isoformat()
    return str(obj)


def _print_json(obj) -> None:
    sys.stdout.write(json.dumps(obj, default=_json_default, ensure_ascii=False, indent=2) + "\n")


def _parse_day(text: str | None, what: str = "--as-of") -> date | None:
    if text is None:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise UsageError(f"{what} {text!r} is not a date; use YYYY-MM-DD, e.g. 2020-01-20") from None


# --------------------------------------------------------------------------- build / demo

def _build_and_summarise(data_dir: Path, wide_sources: list[dict] | None = None, hint: str | None = None,
                         engine: str = "duckdb", full_refresh: bool = False) -> None:
    from .build import data_source_text, run_build, stored_data_source
    from .paths import db_path
    from .summary import apple_health_summary, rejected_summary, warehouse_summary, withheld_summary

    previous = stored_data_source(db_path()) if engine == "duckdb" else None
    current = data_source_text(data_dir, wide_sources)
    if previous and previous != current:
        # a plain `wag build` after one on other data replaces that warehouse: say so before it does
        console.print(f"Note: the warehouse was last built from {previous}; this build reads {current} "
                      "and replaces its tables (set WAG_DATA_DIR or --data-dir to keep the other data)",
                      style="yellow", markup=False, highlight=False)
    done = {"n": 0}
    with console.status("dbt build: starting…") as status:
        def on_node(name: str, node_status: str) -> None:
            done["n"] += 1
            status.update(f"dbt build: {done['n']} nodes done · last: {name} ({node_status})")

        result = run_build(data_dir, wide_sources=wide_sources, on_node=on_node, engine=engine,
                           full_refresh=full_refresh)
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
        console.print(f"Full build: {'the one subject' if n == 1 else f'all {n} subjects'} computed (the next "
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
) -> None:
    """Run dbt seed + build (models, data tests, unit tests) into the warehouse."""
    from .paths import data_dir as default_data_dir

    try:
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
        _build_and_summarise(root, sources or None, engine=engine, full_refresh=full_refresh)
    except WagError as exc:
        _fail(exc)


@app.command()
def demo(
    seed: Annotated[int, typer.Option(help="Random seed of the synthetic data.")] = 7,
    days: Annotated[int, typer.Option(help="Days per subject.")] = 120,
) -> None:
    """Write deterministic synthetic data (PMData and LifeSnaps layouts) and build the warehouse on it."""
    from .demo import write_demo_data
    from .paths import demo_dir

    try:
        out = demo_dir()
        info = write_demo_data(out, seed=seed, days=days)
        n_subj = len(info.get("subjects", [])) if isinstance(info, dict) else "?"
        console.print(f"Demo data written to {out} ({n_subj} subjects, {days} days each)")
        _build_and_summarise(out, hint='next: wag ask "How did I sleep this week?" --subject pmdata:demo01')
    except WagError as exc:
        _fail(exc)


# --------------------------------------------------------------------------- inspection

@app.command()
def subjects(
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """List subjects with their days, metrics and date range."""
    from .db import fetch_dicts, warehouse
    from .summary import SUBJECTS_SQL

    try:
        with warehouse() as con:
            rows = fetch_dicts(con, SUBJECTS_SQL)
    except WagError as exc:
        _fail(exc, as_json)
    if as_json:
        _print_json({"subjects": rows})
        return
    table = Table(title=f"{len(rows)} subjects",
                  caption="selected = in the stratified sample of participant_selection (DESIGN.md §3); "
                          "every subject can be asked about")
    for col in ("subject_id", "days with data", "metrics", "first day", "last day", "selected"):
        table.add_column(col, no_wrap=col == "subject_id")
    for r in rows:
        table.add_row(r["subject_id"], str(r["n_days"]), str(r["n_metrics"]), str(r["first_day"]),
                      str(r["last_day"]), "yes" if r["is_selected"] else "")
    console.print(table)


@app.command()
def sql(
    query: Annotated[str, typer.Argument(help="One SELECT / WITH / DESCRIBE / SHOW / SUMMARIZE / EXPLAIN statement (the warehouse is opened read-only, without file or network access).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print rows as JSON.")] = False,
    limit: Annotated[int, typer.Option(help="Rows to print at most (table output).")] = 50,
) -> None:
    """Run a read-only SQL query against the warehouse (cells are printed literally)."""
    from .db import execute_read_only, warehouse
    from .sqlguard import check_read_only_sql

    try:
        if limit < 0:
            raise UsageError(f"--limit {limit}: give a number of rows >= 0, e.g. --limit 20")
        check_read_only_sql(query)
        with warehouse() as con:
            cols, rows, _ = execute_read_only(con, query)
        if not cols:
            return
    except WagError as exc:
        _fail(exc, as_json)
    if as_json:
        _print_json([dict(zip(cols, r)) for r in rows])
        return
    table = Table(title=Text(f"{len(rows)} row{'' if len(rows) == 1 else 's'}"
                             + (f" (first {limit} shown)" if len(rows) > limit else "")))
    for c in cols:
        table.add_column(Text(str(c)))
    for r in rows[:limit]:
        table.add_row(*[Text("" if v is None else str(v)) for v in r])
    console.print(table, markup=False, highlight=False, emoji=False)


@graph_app.command("show")
def graph_show(
    node: Annotated[str, typer.Argument(help="A node id, name or alias, e.g. deep_sleep_duration or HRV.")],
    subject: Annotated[Optional[str], typer.Option("--subject", help="Show this subject's edge weights.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Show a node, its edges and (with --subject) their weight columns."""
    from .db import warehouse
    from .graph import node_view

    try:
        with warehouse() as con:
            view = node_view(con, node, subject)
    except WagError as exc:
        _fail(exc, as_json)
    if as_json:
        _print_json(view)
        return
    n = view["node"]
    console.print(f"[bold]{n['name']}[/] ({n['metric_id']}) — {n['category']}, unit {n['unit']}, "
                  f"data in: {n['datasets_with_data'] or 'none'}")
    console.print(n["description"], highlight=False)
    if subject:
        table = Table(title=f"edge weights of {n['metric_id']} for {subject} (ranked by w_global)")
        cols = ("node_y", "w_prior", "r_s_signed", "n_s", "r_pop_signed", "n_pop", "p_prior", "o_pop",
                "i_ind", "mu_pop", "mu_s", "w_global", "fallback")
        for c in cols:
            table.add_column(c)
        for r in view["edge_weights"]:
            table.add_row(*[_cell(r.get(c)) for c in cols])
    else:
        table = Table(title=f"{len(view['edges'])} prior edges of {n['metric_id']}")
        for c in ("neighbour", "w_prior", "confidence", "relationship"):
            table.add_column(c)
        for r in view["edges"]:
            table.add_row(r["neighbour"], _cell(r["w_prior"]), r["confidence"], r["relationship"])
    console.print(table)


def _cell(v) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.3f}"
    return str(v)


# --------------------------------------------------------------------------- parse / ask

@app.command()
def parse(
    question: Annotated[str, typer.Argument(help="The question, in quotes.")],
    as_of: Annotated[Optional[str], typer.Option("--as-of", help="Reference day YYYY-MM-DD (default: the --subject's last day with data, else today).")] = None,
    subject: Annotated[Optional[str], typer.Option("--subject", help="Subject id: its last day with data is the reference day, as in `wag ask`.")] = None,
    offline: Annotated[bool, typer.Option("--offline", help="Never call a language model.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Parse a question into metrics, window, reference day, openness and category (DESIGN.md §8)."""
    from .ask import parse_question, reference_day_for

    try:
        ref, ref_source = reference_day_for(subject, _parse_day(as_of))
        parsed = parse_question(question, ref, offline=offline)
    except WagError as exc:
        _fail(exc, as_json)
    out = parsed.to_json()
    out["as_of"] = ref.isoformat()
    out["as_of_source"] = ref_source
    if not parsed.metrics:
        from .ask import no_metric_hint
        from .catalog import load_catalog

        out["closest_metrics"] = no_metric_hint(question, load_catalog())[1]
    if as_json:
        _print_json(out)
        return
    table = Table(title="QueryParse", show_header=False)
    for k in ("metrics", "window_days", "reference_day", "openness", "category", "source"):
        table.add_row(k, str(out.get(k)))
    table.add_row("as of", f"{out['as_of']} ({ref_source})")
    if out.get("closest_metrics"):
        table.add_row("closest metrics", ", ".join(out["closest_metrics"]))
    console.print(table)


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="The question, in quotes.")],
    subject: Annotated[str, typer.Option("--subject", help="Subject id, e.g. pmdata:p01 (see `wag subjects`).")],
    as_of: Annotated[Optional[str], typer.Option("--as-of", help="Reference day YYYY-MM-DD (default: the subject's last day with data).")] = None,
    method: Annotated[str, typer.Option("--method", help="wag (full subgraph), rag (primary nodes' knowledge + data) or base (data only).")] = "wag",
    offline: Annotated[bool, typer.Option("--offline", help="Never call a language model.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    kappa: Annotated[Optional[int], typer.Option("--kappa", min=0, help="Neighbour budget scale: B = floor(openness x kappa) (§8; dbt var kappa).", rich_help_panel="Retrieval constants")] = None,
    beta: Annotated[Optional[float], typer.Option("--beta", min=0, max=1, help="Weight of w_local in w_final (§7; var beta).", rich_help_panel="Retrieval constants")] = None,
    gamma_local: Annotated[Optional[float], typer.Option("--gamma-local", help="Sigmoid slope of the local weight (§7).", rich_help_panel="Retrieval constants")] = None,
    gamma_global: Annotated[Optional[float], typer.Option("--gamma-global", help="Sigmoid slope of the global weights (§6).", rich_help_panel="Retrieval constants")] = None,
    alpha_prior: Annotated[Optional[float], typer.Option("--alpha-prior", min=0, help="HBM prior variance scale (§6).", rich_help_panel="Retrieval constants")] = None,
    alpha_pop: Annotated[Optional[float], typer.Option("--alpha-pop", min=0, help="HBM population variance scale (§6).", rich_help_panel="Retrieval constants")] = None,
    alpha_ind: Annotated[Optional[float], typer.Option("--alpha-ind", min=0, help="HBM individual variance scale (§6).", rich_help_panel="Retrieval constants")] = None,
    min_samples: Annotated[Optional[int], typer.Option("--min-samples", min=3, help="Paired days for a valid correlation (§5).", rich_help_panel="Retrieval constants")] = None,
    min_pop_subjects: Annotated[Optional[int], typer.Option("--min-pop-subjects", min=1, help="Subjects behind a population correlation (§5).", rich_help_panel="Retrieval constants")] = None,
    delta: Annotated[Optional[float], typer.Option("--delta", min=0, max=1, help="Cosine threshold of embedding matches of metric names (§8; model path).", rich_help_panel="Retrieval constants")] = None,
    rank_by: Annotated[Optional[str], typer.Option("--rank-by", help="Weight that ranks neighbours: w_final, or an ablation w_global, w_local, p_prior, w_pop, w_ind (§6-§7).", rich_help_panel="Retrieval constants")] = None,
    budget: Annotated[Optional[int], typer.Option("--budget", min=200, help="Token budget of the model prompt (default 3456: a 4,096-token context with room for the reply); lowest-weight neighbours' daily rows are trimmed first.")] = None,
) -> None:
    """Answer a question about a subject's data, grounded in the retrieved subgraph.

    Every retrieval constant defaults to the dbt var of the same name in dbt_project.yml."""
    from .ask import answer_question
    from .render import print_answer
    from .settings import RetrievalSettings

    try:
        settings = RetrievalSettings.from_project(
            kappa=kappa, beta=beta, gamma_local=gamma_local, gamma_global=gamma_global, alpha_prior=alpha_prior,
            alpha_pop=alpha_pop, alpha_ind=alpha_ind, min_samples=min_samples, min_pop_subjects=min_pop_subjects,
            delta=delta, rank_by=rank_by)
        result = answer_question(question, subject, as_of=_parse_day(as_of), method=method, offline=offline,
                                 settings=settings, budget=budget)
    except WagError as exc:
        _fail(exc, as_json)
    if as_json:
        _print_json(result.to_json())
        return
    print_answer(console, result)


@app.command()
def mcp(
    http: Annotated[bool, typer.Option("--http", help="Serve streamable HTTP on 127.0.0.1 (endpoint /mcp) instead of stdio.")] = False,
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="Port of --http.")] = 8765,  # mcp_server.DEFAULT_HTTP_PORT
) -> None:
    """Serve the warehouse as a read-only MCP tool server (stdio by default) for any MCP client.

    Tools: list_subjects, list_metrics, ask, retrieve_subgraph, node_window, explain_edge, run_sql;
    resources wag://catalog and wag://method. The warehouse ($WAG_DB) is opened read-only per call."""
    from .mcp_server import serve

    serve(http=http, port=port)


from .graphgen.commands import model_app  # noqa: E402  (registers wag graph build/diff/add-metrics/plot)

app.add_typer(model_app, name="model")


def main() -> None:  # pragma: no cover - console script entry
    app()
