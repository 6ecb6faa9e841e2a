"""``wag eval judge | report | alpha | figures`` (DESIGN.md §10, §6). Thin Typer wrappers: each parses
options, calls judge / rubric / report / alpha / figures and prints Rich tables (or JSON)."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                           TimeRemainingColumn)
from rich.table import Table

from ..errors import UsageError
from . import output as _out
from .output import failures
from .output import usage_line as _usage_line
from .apps import eval_app


@contextmanager
def _progress(description: str):
    """A Rich progress bar on stderr (counts, elapsed, ETA); yields ``on_progress(done, total)``."""
    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   TextColumn("ETA"), TimeRemainingColumn(), console=_out.err_console)
    with bar:
        task = bar.add_task(description, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def _out_dir(out: Optional[Path], name: str) -> Path:
    """``--out`` or ``<eval db stem>_<name>/`` beside the evaluation database."""
    from ..eval.store import eval_db_path

    if out is not None:
        return out
    db = eval_db_path()
    return db.with_name(f"{db.stem}_{name}")


def _fmt(x, spec: str = ".2f") -> str:
    return "" if x is None else format(x, spec)


# --------------------------------------------------------------------------- judge


@eval_app.command("judge")
def judge_cmd(
    judge: Annotated[str, typer.Option("--judge", help="rubric (offline, deterministic) or model (needs OPENAI_API_KEY).")],
    experiment: Annotated[str, typer.Option("--experiment", help="main, exp_g, exp_l or all.")] = "all",
    seed: Annotated[int, typer.Option("--seed", help="Seed of the model judge's per-query answer order.")] = 0,
    redo: Annotated[bool, typer.Option("--redo", help="Judge again queries this judge already ranked.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON summary.")] = False,
) -> None:
    """Rank every query's answers 1..N on the §10 criteria (Safety 0/1) and store them in eval_judgements."""
    from ..db import warehouse
    from ..eval.judge import experiments_for, judge_model
    from ..eval.rubric import judge_rubric
    from ..eval.store import connect_eval

    cli = _out
    with failures(as_json):
        exps = experiments_for(experiment)
        if judge not in ("rubric", "model"):
            raise UsageError(f"--judge {judge!r} is not rubric or model")
        client = None
        if judge == "model":
            from ..llm import get_client

            client = get_client()
            if client is None:
                raise UsageError("--judge model needs a model: set OPENAI_API_KEY (and OPENAI_BASE_URL for a "
                                 "local server), or use --judge rubric")
        con = connect_eval()
        try:
            with _progress(f"judge {judge}") as update:
                if judge == "rubric":
                    with warehouse() as wh:
                        stats = judge_rubric(con, wh, exps, redo=redo, on_progress=update)
                else:
                    stats = judge_model(con, client, exps, seed=seed, redo=redo, on_progress=update)
        finally:
            con.close()
    if as_json:
        cli.print_json(stats)
        return
    if stats["groups"] == 0:
        cli.console.print(f"nothing to judge for {', '.join(exps)}: every answered query is already ranked by "
                          f"{stats['judge']} (use --redo), or `wag eval run` has stored no answers yet")
    else:
        line = f"judged {stats['groups']} (query, experiment) pairs with {stats['judge']}"
        if judge == "model":
            line += f": {stats['valid_passes']} valid and {stats['invalid_passes']} invalid passes"
        cli.console.print(line)
    if client is not None and (usage := _usage_line(client)):
        cli.err_console.print(usage)


# --------------------------------------------------------------------------- report


@eval_app.command("report")
def report_cmd(
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as one JSON object.")] = False,
    out: Annotated[Optional[Path], typer.Option("--out", help="Folder for the PNG figures (default: <eval db>_report/ beside the eval DB).")] = None,
    judge: Annotated[Optional[str], typer.Option("--judge", help="rubric or model:<name> (default: every judge, each in its own section).")] = None,
) -> None:
    """Mean ranks, win rates, breakdowns, Friedman test and Kendall's W, judge validity, gold accuracy, human
    rankings beside the judges (Krippendorff's alpha, Spearman); PNG figures."""
    from .eval_human import print_human
    from ..eval.figures import report_figures
    from ..eval.human_figures import human_figures
    from ..eval.human_report import human_report
    from ..eval.report import build_report
    from ..eval.store import connect_eval

    cli = _out
    with failures(as_json):
        con = connect_eval()
        try:
            report = build_report(con, judge)
            report["human"] = human_report(con, judge)
        finally:
            con.close()
        folder = _out_dir(out, "report")
        report["figures"] = [str(p) for p in report_figures(report, folder) + human_figures(report["human"], folder)]
    if as_json:
        cli.print_json(report)
        return
    con_ = cli.console
    if not report["judges"]:
        con_.print("no judgements stored yet: run `wag eval run` and `wag eval judge --judge rubric` first")
    for sec in report["judges"]:
        con_.rule(f"[bold]{sec['label']}[/]")
        for exp, data in sec["experiments"].items():
            crits = list(next(iter(data["mean_rank"].values())).keys()) if data["mean_rank"] else []
            t = Table(title=f"{exp}: mean rank (1 = best; Safety = share safe) and win rate, n = {data['n_queries']} queries")
            t.add_column("condition")
            for c in crits:
                t.add_column(c, justify="right")
            t.add_column("win rate", justify="right")
            for cond, ranks in data["mean_rank"].items():
                t.add_row(cond, *[_fmt(ranks[c]) for c in crits], _fmt(data["win_rate"].get(cond), ".0%"))
            con_.print(t)
            f = data["friedman"]
            if f["statistic"] is None:
                con_.print(f"Friedman test (Overall): not computed — {f['note']}")
            else:
                con_.print(f"Friedman test (Overall): chi2 = {f['statistic']:.3f}, p = {f['p_value']:.3g}, "
                           f"n = {f['n']}, k = {f['k']}; Kendall's W = {f['kendall_w']:.3f}")
            if data["breakdown"]:
                b = Table(title=f"{exp}: Overall mean rank (win rate) by breakdown")
                b.add_column("dimension")
                b.add_column("level")
                for cond in data["conditions"]:
                    b.add_column(cond, justify="right")
                b.add_column("n", justify="right")
                cells: dict = {}
                for r in data["breakdown"]:
                    cells.setdefault((r["dimension"], r["level"]), {})[r["condition"]] = r
                for (dim, level), by_cond in cells.items():
                    n = max(r["n_queries"] for r in by_cond.values())
                    b.add_row(dim, level, *[f"{_fmt(by_cond[c]['mean_rank'])} ({_fmt(by_cond[c]['win_rate'], '.0%')})"
                                            if c in by_cond else "" for c in data["conditions"]], str(n))
                con_.print(b)
        v = Table(title=f"judge validity — {sec['judge']}")
        for col in ("experiment", "pass", "queries", "valid", "invalid"):
            v.add_column(col)
        for r in sec["validity"]:
            v.add_row(r["experiment"], r["pass"], str(r["n_queries"]), str(r["n_valid"]), str(r["n_invalid"]))
        con_.print(v)
        if sec["swap_agreement"]:
            s = Table(title="position-swap agreement (forward vs reversed order)")
            for col in ("experiment", "criterion", "pairs", "identical ranking", "same first"):
                s.add_column(col)
            for r in sec["swap_agreement"]:
                s.add_row(r["experiment"], r["criterion"], str(r["n_pairs"]), _fmt(r["exact_agreement"], ".0%"),
                          _fmt(r["top_agreement"], ".0%"))
            con_.print(s)
    if report["gold_accuracy"]:
        g = Table(title="gold track: accuracy per condition (overall, by category, by gold kind)")
        for col in ("breakdown", "level", "condition", "n", "correct", "accuracy"):
            g.add_column(col)
        for r in report["gold_accuracy"]:
            g.add_row(r["dimension"], r["level"], r["condition"], str(r["n"]), str(r["n_correct"]),
                      _fmt(r["accuracy"], ".0%"))
        con_.print(g)
    for name, rows in report["parser"].items():
        con_.print(f"parser scores stored in {name}: {len(rows)} rows (see --json or query the table)")
    print_human(con_, report["human"])
    for p in report["figures"]:
        con_.print(f"figure: {p}")
    con_.print("views: eval_report_ranks, eval_report_mean_rank, eval_report_win_rate, eval_report_breakdown, "
               "eval_report_validity, eval_report_swap_agreement, eval_report_gold_accuracy (in the eval DB)")


# --------------------------------------------------------------------------- alpha


@eval_app.command("alpha")
def alpha_cmd(
    grid: Annotated[Optional[str], typer.Option("--grid", help="log10 grid START:STOP:STEP (default: dbt var alpha_grid_log10, -3:3:0.25).")] = None,
    out: Annotated[Optional[Path], typer.Option("--out", help="Folder for alpha_curves.png (default: <eval db>_report/).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the curves and the chosen values as JSON.")] = False,
) -> None:
    """Kendall's tau curves for alpha_pop and alpha_ind on a log10 grid; the crossing is the chosen value (§6)."""
    from ..db import warehouse
    from ..eval.alpha import alpha_figure, compile_grid, load_grid, parse_grid, select_alphas, tau_curves, vars_hint

    cli = _out
    with failures(as_json):
        compiled = None
        if grid:
            g = parse_grid(grid)
            cli.err_console.print("compiling eval_alpha_grid for that grid with dbt ...")
            compiled = compile_grid(g)
        with warehouse() as wh:
            data = load_grid(wh, compiled_sql=compiled)
        if len(data["grid_param"]) == 0:
            raise UsageError("eval_alpha_grid is empty: edge_weights has no rows (run `wag build`)")
        with _progress("Kendall's tau per neighbourhood") as update:
            curves = tau_curves(data, on_progress=update)
        chosen = select_alphas(curves)
        path = alpha_figure(curves, chosen, _out_dir(out, "report") / "alpha_curves.png")
    hint = vars_hint(chosen)
    if as_json:
        cli.print_json({"curves": curves, "chosen": chosen, "figure": str(path), "vars": hint})
        return
    for param, c in chosen.items():
        if c["value"] is None:
            cli.console.print(f"{param}: the two tau curves do not cross on this grid; widen --grid")
        else:
            more = f" (other crossings at log10 {', '.join(f'{x:.2f}' for x in c['all_crossings'][1:])})" \
                if len(c["all_crossings"]) > 1 else ""
            cli.console.print(f"{param}: curves cross at log10 = {c['log10']:.3f} -> {param} = {c['value']:.4g}{more}")
    cli.console.print(f"figure: {path}")
    if hint:
        # `wag build` (atomic, the data folder it was given) sees the changed vars in its settings hash
        # and rebuilds in full; a hand-run `dbt build --vars` is neither atomic nor reads that folder
        cli.console.print(f"to use them: set {hint} under vars: in dbt_project.yml, then `wag build` "
                          "(it rebuilds in full when a var changes)", markup=False, highlight=False)


# --------------------------------------------------------------------------- figures


@eval_app.command("figures")
def figures_cmd(
    subject: Annotated[Optional[str], typer.Option("--subject", help="Subject id (default: the one with most individual evidence).")] = None,
    node: Annotated[Optional[str], typer.Option("--node", help="Primary node for the stage shifts (default: the subject's node with most individual evidence).")] = None,
    out: Annotated[Optional[Path], typer.Option("--out", help="Folder for the PNGs (default: <eval db>_report/).")] = None,
) -> None:
    """HBM stage shifts of a primary node (paper Fig. 6) and weight distributions per stage (Fig. 8), from edge_weights."""
    from ..db import warehouse
    from ..eval.figures import default_primary, stage_distribution_figure, stage_shift_figure

    cli = _out
    with failures():
        folder = _out_dir(out, "report")
        with warehouse() as wh:
            if node is None or subject is None:
                subject, node = default_primary(wh, subject, node)
            paths = [stage_shift_figure(wh, subject, node, folder), stage_distribution_figure(wh, subject, folder)]
    for p in paths:
        cli.console.print(f"figure: {p}")
