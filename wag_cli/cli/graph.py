"""Typer commands: ``wag graph build | diff | add-metrics | plot`` and ``wag model check``.

Each command parses options and calls one function of :mod:`wag_cli.graphgen` /
:mod:`wag_cli.modelcheck`; a :class:`WagError` becomes one line on stderr and an exit code.
New seeds go to the folder the user names (``--out``); the shipped ``seeds/`` are only replaced
with ``--write`` (then ``wag build`` builds the warehouse on the new graph).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from .apps import graph_app, model_app
from .output import console, err_console, failures, parse_day, print_json
from ..errors import UsageError

SEED_FILES = ("metric_catalog.csv", "prior_edges.csv", "prior_unrelated_pairs.csv")


def _shipped() -> Path:
    from ..paths import project_dir

    return project_dir() / "seeds"


def _write_shipped(out: Path) -> list[Path]:
    """Copy the three seed CSVs of ``out`` over the project's seeds/ (``--write``)."""
    dest = _shipped()
    done = []
    for f in SEED_FILES:
        shutil.copyfile(out / f, dest / f)
        done.append(dest / f)
    return done


def _check_out(out: Path) -> Path:
    out = out.expanduser().resolve()
    if out == _shipped().resolve():
        raise UsageError(f"--out {out} is the shipped seeds folder; write to another folder and use --write "
                         "to replace the shipped seeds")
    return out


def _progress():
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    return Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), console=err_console,
                    transient=False)


def _run_build(base, metrics, client) -> tuple:
    from ..graphgen.build import build_graph

    with _progress() as prog:
        task = prog.add_task("graph build", total=None)

        def on_step(kind, label, stats):
            prog.update(task, description=(
                f"{kind} {label} · {stats.requests} requests, {stats.cache_hits} cached · "
                f"~{stats.prompt_tokens:,} prompt tokens (estimate)"))
        return build_graph(base, metrics, client, on_step=on_step)


def _report_build(stats, out: Path, written: list[Path], as_json: bool) -> None:
    info = {"out": str(out), "added": stats.added, "merged": {k: list(v) for k, v in stats.merged.items()},
            "requests": stats.requests, "cache_hits": stats.cache_hits,
            "prompt_tokens_estimate": stats.prompt_tokens, "usage": stats.usage,
            "failed": [list(f) for f in stats.failed], "written_to_seeds": [str(p) for p in written]}
    if as_json:
        print_json(info)
        return
    console.print(f"New nodes: {', '.join(stats.added) or 'none'}")
    for name, (mid, how) in stats.merged.items():
        console.print(f"Merged {name!r} into {mid} ({how})")
    console.print(f"{stats.requests} model requests, {stats.cache_hits} from the reply cache, "
                  f"~{stats.prompt_tokens:,} prompt tokens (ceil(chars/4) estimate); server usage {stats.usage}")
    for step, what, why in stats.failed:
        console.print(f"[yellow]not written:[/] {step} {what}: {why}", highlight=False)
    console.print(f"Seeds written to {out}. Review with `wag graph diff {_shipped()} {out}`; "
                  + ("copied into seeds/ — run `wag build` to use them." if written else
                     "run again with --write (or copy the three CSVs into seeds/) and `wag build` to use them."))


@graph_app.command("build")
def graph_build(
    out: Annotated[Path, typer.Option("--out", help="Folder to write metric_catalog.csv, prior_edges.csv, prior_unrelated_pairs.csv into.")],
    metric: Annotated[Optional[list[str]], typer.Option("--metric", help="A metric name to add (repeatable).")] = None,
    metrics_file: Annotated[Optional[Path], typer.Option("--metrics-file", help="Metric names, one per line (or a CSV with a name column).")] = None,
    base: Annotated[Optional[Path], typer.Option("--base", help="Seed folder to start from (default: the shipped seeds/).")] = None,
    regenerate: Annotated[bool, typer.Option("--regenerate", help="Rebuild the whole graph from the base catalog's metric names (Algorithm 1 from an empty graph).")] = False,
    write: Annotated[bool, typer.Option("--write", help="Also copy the result over the shipped seeds/.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Grow (or regenerate) the knowledge graph with a language model: Merge, NodeGen, EdgeGen (DESIGN.md §9)."""
    from ..llm import get_client
    from ..graphgen.seeds import GraphSeeds, read_seeds, write_seeds
    from ..graphgen.sources import metrics_from_file

    with failures(as_json):
        out = _check_out(out)
        start = read_seeds(base or _shipped())
        names = [{"name": m} for m in metric or []]
        if metrics_file:
            names += metrics_from_file(metrics_file)
        if regenerate:
            order = sorted(start.nodes.values(), key=lambda r: r.get("origin") != "initial")
            names = [{"name": r["name"], "data_source": r.get("data_sources") or ""} for r in order] + names
            start = GraphSeeds()
        if not names:
            raise UsageError("nothing to build: give --metric NAME, --metrics-file FILE or --regenerate")
        client = get_client()
        if client is None:
            raise UsageError("wag graph build needs a model (set OPENAI_API_KEY / OPENAI_BASE_URL); offline, "
                             "`wag graph add-metrics --from-unmapped --offline` proposes nodes without one")
        graph, stats = _run_build(start, names, client)
        write_seeds(graph, out)
        written = _write_shipped(out) if write else []
    _report_build(stats, out, written, as_json)


@graph_app.command("add-metrics")
def graph_add_metrics(
    out: Annotated[Path, typer.Option("--out", help="Folder for the proposed seeds.")],
    from_unmapped: Annotated[bool, typer.Option("--from-unmapped", help="Use the wide sources' unmapped columns (stg_wide__unmapped_columns).")] = False,
    wide: Annotated[Optional[list[str]], typer.Option("--wide", help="NAME=PATH of a wide CSV (as given to wag build) to read sample values from; repeatable.")] = None,
    offline: Annotated[bool, typer.Option("--offline", help="Propose nodes without a model (unit/category from name and values, no edges).")] = False,
    write: Annotated[bool, typer.Option("--write", help="Also copy the result over the shipped seeds/.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Propose nodes for metrics the catalog lacks (unmapped wide columns); nothing touches seeds/ without --write."""
    from ..db import warehouse
    from ..llm import get_client
    from ..graphgen.propose import propose_nodes
    from ..graphgen.seeds import read_seeds, write_seeds
    from ..graphgen.sources import unmapped_columns

    with failures(as_json):
        if not from_unmapped:
            raise UsageError("say where the metrics come from: --from-unmapped")
        out = _check_out(out)
        paths = {}
        for item in wide or []:
            name, sep, path = item.partition("=")
            if not sep or not Path(path).expanduser().is_file():
                raise UsageError(f"--wide {item!r}: expected NAME=PATH of an existing CSV")
            paths[name] = Path(path).expanduser()
        with warehouse() as con:
            columns = unmapped_columns(con, paths)
        if not columns:
            raise UsageError("the warehouse lists no unmapped wide column (stg_wide__unmapped_columns is empty; "
                             "wag build --wide NAME=PATH adds a wide source)")
        base = read_seeds(_shipped())
        client = None if offline else get_client()
        if client is None:
            graph, added, merged = propose_nodes(base, columns)
            write_seeds(graph, out)
            written = _write_shipped(out) if write else []
            info = {"mode": "offline", "out": str(out), "added": added, "merged": merged,
                    "unreviewed": added, "written_to_seeds": [str(p) for p in written]}
            if as_json:
                print_json(info)
                return
            for mid in added:
                r = graph.nodes[mid]
                console.print(f"proposed [bold]{mid}[/] ({r['category']}, {r['unit']}, {r['data_kind']}) — unreviewed, no prior edges")
            for col, mid in merged.items():
                console.print(f"column {col!r} matches node {mid}: alias and data source added")
            console.print(f"Seeds written to {out}; review them (`wag graph diff {_shipped()} {out}`), then "
                          + ("they are in seeds/: run `wag build`." if written else "--write and `wag build` to use them."))
            return
        metrics = [{"name": c.column_name, "dataset": c.dataset, "column": c.column_name,
                    "observed_values": c.values[:12], "data_source": c.data_source.replace(" (unreviewed proposal)", "")}
                   for c in columns]
        graph, stats = _run_build(base, metrics, client)
        write_seeds(graph, out)
        written = _write_shipped(out) if write else []
    _report_build(stats, out, written, as_json)


@graph_app.command("diff")
def graph_diff(
    old: Annotated[Path, typer.Argument(help="Seed folder before (e.g. seeds).")],
    new: Annotated[Path, typer.Argument(help="Seed folder after (e.g. the --out of wag graph build).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Show what changed between two seed folders: nodes, edges, unrelated pairs."""
    from ..graphgen.seeds import diff_seeds, read_seeds

    with failures(as_json):
        d = diff_seeds(read_seeds(old), read_seeds(new))
    if as_json:
        print_json(d)
        return
    t = Table(title=f"graph diff {old} -> {new}")
    for c in ("table", "added", "removed", "changed"):
        t.add_column(c)
    t.add_row("nodes", str(len(d["nodes"]["added"])), str(len(d["nodes"]["removed"])), str(len(d["nodes"]["changed"])))
    t.add_row("edges", str(len(d["edges"]["added"])), str(len(d["edges"]["removed"])), str(len(d["edges"]["changed"])))
    t.add_row("unrelated pairs", str(len(d["unrelated"]["added"])), str(len(d["unrelated"]["removed"])), "")
    console.print(t)
    for mid in d["nodes"]["added"]:
        console.print(f"+ node {mid}")
    for mid in d["nodes"]["removed"]:
        console.print(f"- node {mid}")
    for mid, fields in d["nodes"]["changed"].items():
        console.print(f"~ node {mid}: {', '.join(fields)}")
    for k in d["edges"]["added"][:50]:
        console.print(f"+ edge {k}")
    for k in d["edges"]["removed"][:50]:
        console.print(f"- edge {k}")
    for k, ch in list(d["edges"]["changed"].items())[:50]:
        console.print(f"~ edge {k}: " + "; ".join(f"{f} {a} -> {b}" for f, (a, b) in ch.items()), highlight=False)


@graph_app.command("plot")
def graph_plot(
    node: Annotated[Optional[str], typer.Argument(help="Plot this node and its neighbours (default: the whole graph).")] = None,
    out: Annotated[Path, typer.Option("--out", help="PNG file to write.")] = Path("wag_graph.png"),
    subject: Annotated[Optional[str], typer.Option("--subject", help="With --question: plot the subgraph retrieved for this subject.")] = None,
    as_of: Annotated[Optional[str], typer.Option("--as-of", help="Reference day YYYY-MM-DD for --subject.")] = None,
    question: Annotated[Optional[str], typer.Option("--question", help="The question whose subgraph to plot (with --subject).")] = None,
) -> None:
    """Write the knowledge graph, a node's neighbourhood or a retrieved subgraph as a PNG."""
    from ..db import warehouse
    from ..graphgen.plot import draw, general_graph, subgraph_graph

    with failures():
        if (subject is None) != (question is None):
            raise UsageError("--subject and --question go together (the subgraph retrieved for that question)")
        if subject:
            from ..pipeline import answer_question

            res = answer_question(question, subject, as_of=parse_day(as_of), offline=True)
            g, hl = subgraph_graph(res.subgraph)
            title = f"{subject}, {res.subgraph.reference_day}: {question} (edge width = w_final)"
        else:
            with warehouse() as con:
                if node is not None:
                    from ..graph import node_view

                    node = node_view(con, node)["node"]["metric_id"]
                g, hl = general_graph(con, node)
            title = (f"{node} and its neighbours" if node else "WAG knowledge graph") + " (edge width = w_prior)"
        path = draw(g, out, title, highlight=hl)
    console.print(f"wrote {path} ({g.number_of_nodes()} nodes, {g.number_of_edges()} edges)")


@model_app.command("check")
def model_check(as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False) -> None:
    """Show the model settings, what the server serves, the structured-output shape it accepts, and one test request."""
    from ..modelcheck import check_model

    with failures(as_json):
        info = check_model()
    if as_json:
        print_json(info)
        return
    t = Table(title="wag model check", show_header=False)
    t.add_row("base URL", info["base_url"])
    t.add_row("model", info["model"])
    t.add_row("timeout", f"{info['timeout_s']:g} s (WAG_LLM_TIMEOUT; a timed-out request is not repeated)")
    t.add_row("retries", str(info["retries"]))
    t.add_row("reply cache", info["cache"])
    t.add_row("served models", ", ".join(info["served"] or []) or "?")
    t.add_row("structured output", info["shape"] or "none worked")
    test = info["test"]
    t.add_row("test request", f"ok in {test['seconds']} s" if test["ok"] else f"failed: {test['error']}")
    console.print(t)
    for w in info["warnings"]:
        console.print(f"[yellow]warning:[/] {w}", highlight=False)
    if not test["ok"]:
        raise typer.Exit(4)

