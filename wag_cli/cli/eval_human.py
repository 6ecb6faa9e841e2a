"""``wag eval human sample | serve | export | import`` (DESIGN.md §10 "Human evaluation"). Thin Typer
wrappers over human_sample / human_server / human_files, plus :func:`print_human`, the Rich tables of
the human section that ``wag eval report`` prints."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from ..errors import UsageError
from .apps import eval_app
from . import output as _out
from .output import failures

human_app = typer.Typer(
    help="Human evaluation (DESIGN.md §10): sample queries, rank them in a local web page or in files, import.",
    no_args_is_help=True,
)
eval_app.add_typer(human_app, name="human")


def _experiments(experiment: str) -> list[str] | None:
    """``all`` -> None (every experiment stored), else that experiment."""
    return None if experiment == "all" else [experiment]


@human_app.command("sample")
def sample_cmd(
    n: Annotated[int, typer.Option("--n", help="Queries per experiment (the paper: 100).")] = 100,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the draw.")] = 0,
    experiment: Annotated[str, typer.Option("--experiment", help="An experiment with stored answers, or all.")] = "all",
    replace: Annotated[bool, typer.Option("--replace", help="Replace a stored sample drawn differently.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON summary.")] = False,
) -> None:
    """Draw N queries per experiment (seeded) for the raters and store them in eval_human_sample."""
    from ..eval.human_sample import draw_sample
    from ..eval.store import connect_eval

    cli = _out
    with failures(as_json):
        con = connect_eval()
        try:
            res = draw_sample(con, n=n, seed=seed, experiments=_experiments(experiment), replace=replace)
        finally:
            con.close()
    if as_json:
        cli.print_json(res)
        return
    for r in res:
        verb = "sampled" if r["status"] == "drawn" else "kept the stored sample of"
        cli.console.print(f"{r['experiment']}: {verb} {r['sampled']} of {r['candidates']} qualifying queries "
                          f"(conditions shown: {', '.join(r['conditions'])})")


@human_app.command("serve")
def serve_cmd(
    port: Annotated[int, typer.Option("--port", help="Port on 127.0.0.1 (0 = any free port).")] = 8765,
    experiment: Annotated[str, typer.Option("--experiment", help="Show one experiment's sample, or all.")] = "all",
) -> None:
    """Serve the ranking page on 127.0.0.1 until Ctrl-C; rankings go to eval_human_rankings."""
    from ..eval.human_server import make_server
    from ..eval.human_store import task
    from ..eval.store import connect_eval

    cli = _out
    with failures():
        con = connect_eval()
        exps = _experiments(experiment)
        try:
            if not task(con, exps):
                raise UsageError("no human-evaluation sample stored: run `wag eval human sample` first")
            server = make_server(con, port, exps)
        except BaseException:
            con.close()
            raise
    cli.console.print(f"raters: open {server.url}?rater=<your id>  (Ctrl-C stops; rankings are saved as they are submitted)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        con.close()


@human_app.command("export")
def export_cmd(
    rater: Annotated[list[str], typer.Option("--rater", help="Rater id (repeat for several raters).")],
    out: Annotated[Path, typer.Option("--out", help="Folder for <rater>.md and <rater>.jsonl.")] = Path("human_eval"),
    experiment: Annotated[str, typer.Option("--experiment", help="One experiment's sample, or all.")] = "all",
) -> None:
    """Write each rater's task as a readable sheet (<rater>.md) and a JSON-lines file to fill (<rater>.jsonl)."""
    from ..eval.human_files import export_task
    from ..eval.store import connect_eval

    cli = _out
    with failures():
        con = connect_eval()
        try:
            written = [export_task(con, r, out, _experiments(experiment)) for r in rater]
        finally:
            con.close()
    for md, jl, n in written:
        cli.console.print(f"{n} queries: {md} (read) and {jl} (fill in, then `wag eval human import {jl}`)")


@human_app.command("import")
def import_cmd(
    files: Annotated[list[Path], typer.Argument(help="Filled <rater>.jsonl files.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON summary.")] = False,
) -> None:
    """Validate filled files (permutations without ties, known queries and labels) and store their rankings."""
    from ..eval.human_files import import_files
    from ..eval.store import connect_eval

    cli = _out
    with failures(as_json):
        con = connect_eval()
        try:
            res = import_files(con, files)
        finally:
            con.close()
    if as_json:
        cli.print_json(res)
        return
    for r in res:
        cli.console.print(f"{r['file']}: rater {r['rater']}, {r['ranked']} of {r['lines']} queries ranked and stored")


def _fmt(x, spec: str = ".2f") -> str:
    return "" if x is None else format(x, spec)


def print_human(console, human: dict) -> None:
    """Print the human section of the report (paper Table 2 layout per experiment; Tables 21-22 for the
    other criteria): mean rank per condition per rater, human average and judges; alpha; Spearman."""
    if not human["experiments"]:
        return
    console.rule("[bold]human evaluation[/]")
    for exp, data in human["experiments"].items():
        for crit, sec in data["criteria"].items():
            n_avg = sec["n_queries"]["human average"]
            t = Table(title=f"{exp}: mean {crit} rank (1 = best), human raters beside the judges, "
                            f"n = {n_avg} queries")
            t.add_column("condition")
            for col in sec["columns"]:
                t.add_column(f"{col}\n(n = {sec['n_queries'][col]})", justify="right")
            for cond, row in sec["mean_rank"].items():
                t.add_row(cond, *[_fmt(row[col]) for col in sec["columns"]])
            console.print(t)
            a = sec["alpha"]
            if a["value"] is None:
                console.print(f"Krippendorff's alpha (ordinal, {crit}): not computed — {a['note']}")
            else:
                console.print(f"Krippendorff's alpha (ordinal, {crit}) between {a['n_raters']} raters: "
                              f"{a['value']:.3f} over {a['n_units']} (query, condition) units")
            for j, s in sec["spearman"].items():
                if s["rho"] is None:
                    console.print(f"Spearman (mean human rank vs {j}, {crit}): not computed — {s['note']}")
                else:
                    console.print(f"Spearman (mean human rank vs {j}, {crit}): rho = {s['rho']:.3f}, "
                                  f"p = {s['p_value']:.3g}, n = {s['n_pairs']} (query, condition) pairs")
    console.print("views: eval_human_mean_rank, eval_human_avg_mean_rank, eval_human_pair_rank, "
                  "eval_human_judge_pairs, eval_human_judge_mean_rank (in the eval DB)")
