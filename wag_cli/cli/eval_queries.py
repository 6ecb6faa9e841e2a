"""``wag eval queries | parse | run | gold``: the query set, parser accuracy, the compared conditions
and the gold track (DESIGN.md §10). Thin Typer wrappers: each parses options, calls the functions of
querygen / parse_score / run / gold and prints a Rich table (or JSON with ``--json``)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                           TimeRemainingColumn)
from rich.table import Table

from ..errors import WagError
from . import output as _out
from .output import failures
from .output import usage_line as _usage_line
from .apps import eval_app


def _progress() -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                    console=_out.err_console, transient=False)


def _client(offline: bool):
    from ..llm import get_client

    return get_client(offline=offline)


# --------------------------------------------------------------------------- queries


@eval_app.command("queries")
def queries_cmd(
    n: Annotated[Optional[int], typer.Option("--n", help="Number of tuples (a prefix of eval_query_tuples; default all).")] = None,
    seed: Annotated[Optional[int], typer.Option("--seed", help="Seed of categories, openness and phrasings (default: the tuples' eval_seed).")] = None,
    offline: Annotated[bool, typer.Option("--offline", help="Use the offline phrasings even when a model is configured.")] = False,
    jsonl: Annotated[Optional[Path], typer.Option("--jsonl", help="Also export the queries as JSON lines to this file.")] = None,
    gl_n: Annotated[Optional[int], typer.Option("--gl-n", help="Queries wanted for Exp-G and Exp-L each (DESIGN §10): single-metric tuples beyond --n are examined as extra candidates until each dataset has its share of queries whose weightings retrieve pairwise distinct neighbours.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON summary.")] = False,
) -> None:
    """Turn the query tuples into questions of the nine categories (QueryGen) and store them in eval_queries."""
    from ..catalog import load_catalog
    from ..db import warehouse
    from ..eval.querygen import generate
    from ..eval.store import connect_eval, eval_db_path, export_jsonl, replace_queries
    from ..eval.tuples import load_tuples

    cli = _out
    with failures(as_json):
        client = _client(offline)
        with warehouse() as con:
            tuples = load_tuples(con, n)
            catalog = load_catalog(con)
        seed_used = tuples[0].seed if seed is None else seed
        started = time.perf_counter()
        with _progress() as prog:
            task = prog.add_task("QueryGen" + (f" ({client.chat_model})" if client else " (offline)"), total=len(tuples))
            rows = generate(tuples, seed=seed_used, catalog=catalog, client=client,
                            on_done=lambda _r: prog.advance(task))
            extra_rows, verdicts = [], {}
            if gl_n is not None:
                from ..eval.selection_extras import oversample

                with warehouse() as con:
                    extra_rows, verdicts = oversample(con, rows, load_tuples(con, None), gl_n, seed=seed_used,
                                                      catalog=catalog, client=client, progress=prog)
        con_e = connect_eval()
        try:
            replace_queries(con_e, rows + extra_rows, kinds=("single", "multi"))
            if gl_n is not None:
                from ..eval.selection import store_selection

                for exp, vs in verdicts.items():
                    store_selection(con_e, exp, vs)
            else:
                con_e.execute("delete from eval_selection")   # recomputed over the new set by `wag eval run`
            selection = _selection_rows(con_e)
        finally:
            con_e.close()
        rows = rows + extra_rows
        if jsonl:
            export_jsonl(rows, jsonl)
        elapsed = time.perf_counter() - started
    by_cat: dict[str, int] = {}
    for r in rows:
        by_cat[r["category"]] = by_cat.get(r["category"], 0) + 1
    failed = sum(r["gen_status"] == "fallback" for r in rows)
    summary = {"n": len(rows), "seed": seed_used, "eval_db": str(eval_db_path()), "by_category": by_cat,
               "model_failed": failed, "jsonl": str(jsonl) if jsonl else None, "seconds": round(elapsed, 2),
               "gl_only": sum(r.get("in_main") is False for r in rows), "selection": selection}
    if as_json:
        cli.print_json(summary)
        return
    t = Table(title=f"{len(rows)} questions (seed {seed_used}) -> {eval_db_path()}")
    t.add_column("category")
    t.add_column("n", justify="right")
    for c, k in sorted(by_cat.items()):
        t.add_row(c, str(k))
    cli.console.print(t)
    if failed:
        cli.console.print(f"[yellow]{failed} question(s) fell back to the offline phrasing after the model failed[/]")
    line = _usage_line(client)
    if line:
        cli.console.print(line)
    if jsonl:
        cli.console.print(f"exported to {jsonl}")
    _print_selection(selection)


# --------------------------------------------------------------------------- parse


@eval_app.command("parse")
def parse_cmd(
    offline: Annotated[bool, typer.Option("--offline", help="Score only the offline parser even when a model is configured.")] = False,
    questions: Annotated[Optional[Path], typer.Option("--questions", help="A labelled JSONL file (q, metrics, window, ref_offset?, type; ../shared/eval's format) instead of the generated queries.")] = None,
    as_of: Annotated[Optional[str], typer.Option("--as-of", help="Reference day of the --questions file (YYYY-MM-DD; default 2020-01-01).")] = None,
    limit: Annotated[Optional[int], typer.Option("--limit", help="Score only the first N questions.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
) -> None:
    """Score QueryParse against gold fields, the offline parser and the model path side by side (DESIGN.md §8)."""
    import json as _json

    from ..query.model import parse
    from ..eval.parse_score import CHECKS, compare_parsers, labelled_rows, query_rows

    cli = _out
    with failures(as_json):
        client = _client(offline)
        rows, catalog, what = _parse_rows(questions, as_of, labelled_rows, query_rows)
        rows = rows[:limit] if limit else rows
        names = {"offline": None}
        if client is not None:
            names[f"model:{client.chat_model}"] = client
        with _progress() as prog:
            parsers = {}
            for name, c in names.items():
                task = prog.add_task(f"QueryParse ({name})", total=len(rows))

                def parser(q, day, cat, _c=c, _t=task):
                    p = parse(q, day, catalog=cat, client=_c)
                    prog.advance(_t)
                    return p
                parsers[name] = parser
            result = compare_parsers(rows, parsers, catalog)
    if as_json:
        out = {"questions": what, "n": len(rows), "parsers": list(result),
               "figures": {n: r["figures"] for n, r in result.items()},
               "fallbacks": {n: r["fallbacks"] for n, r in result.items()}}
        for n in result:
            if n != "offline":                    # where the model path's fields came from
                out["sources"] = _source_counts(result[n]["scored"])
        cli.print_json(_json.loads(_json.dumps(out, default=str)))
        return
    t = Table(title=f"QueryParse on {len(rows)} {what}: " + " vs ".join(result))
    t.add_column("category")
    t.add_column("n", justify="right")
    for c in CHECKS:
        for n in result:
            t.add_column(f"{c.replace('_', ' ')}\n{n.split(':')[0]}", justify="right")
    first = next(iter(result.values()))["figures"]
    for cat in sorted(k for k in first if k != "all") + ["all"]:
        t.add_row(cat, str(first[cat]["n"]), *(f"{result[n]['figures'][cat][c]:.0%}" for c in CHECKS for n in result),
                  style="bold" if cat == "all" else None)
    cli.console.print(t)
    for n, r in result.items():
        if r["fallbacks"]:
            cli.console.print(f"[yellow]{n}: {r['fallbacks']} question(s) fell back to the offline parse[/]")
    line = _usage_line(client)
    if line:
        cli.console.print(line)


def _parse_rows(questions: Optional[Path], as_of: Optional[str], labelled_rows, query_rows):
    """``(rows, catalog, description)`` for `wag eval parse`: a labelled file, else the generated queries."""
    import json as _json
    from datetime import date

    from ..catalog import load_catalog
    from ..db import warehouse
    from ..eval.store import connect_eval, read_queries

    if questions is not None:
        try:
            day = date.fromisoformat(as_of) if as_of else date(2020, 1, 1)
        except ValueError:
            raise WagError(f"--as-of {as_of!r} is not a day (YYYY-MM-DD)", exit_code=2) from None
        try:
            lines = [ln for ln in questions.read_text(encoding="utf-8").splitlines() if ln.strip()]
        except OSError as exc:
            raise WagError(f"cannot read {questions}: {exc.strerror}", exit_code=2) from None
        return labelled_rows([_json.loads(ln) for ln in lines], day), load_catalog(), f"questions of {questions.name}"
    con_e = connect_eval()
    try:
        queries = read_queries(con_e, kinds=("single", "multi"))
    finally:
        con_e.close()
    if not queries:
        raise WagError("no generated queries yet: run `wag eval queries` first", exit_code=2)
    with warehouse() as con:
        catalog = load_catalog(con)
    return query_rows(queries), catalog, "generated queries"


def _source_counts(scored: list[dict]) -> dict:
    """How often each field of the model path came from offline, model or combined."""
    out: dict = {}
    for s in scored:
        srcs = s["parsed"].to_json()["sources"]
        for field, src in srcs.items():
            out.setdefault(field, {}).setdefault(src, 0)
            out[field][src] += 1
    return out


# --------------------------------------------------------------------------- run


def _ensure_selection(con, con_e, queries: list[dict], experiment: str) -> set[str]:
    """The Exp-G/L query ids of ``experiment``: the stored selection when it covers ``queries``'
    candidates, else computed now over them (every qualified one) and stored (DESIGN.md §10)."""
    from ..eval.selection import is_candidate, select_queries, selected_ids, store_selection

    ids = {q["query_id"] for q in queries if is_candidate(q)}
    stored = selected_ids(con_e, experiment)
    if stored and stored <= {q["query_id"] for q in queries}:
        return stored & ids
    verdicts = select_queries(con, queries, experiment)
    store_selection(con_e, experiment, verdicts)
    return {v.query_id for v in verdicts if v.selected}


def _selection_rows(con_e) -> list[dict]:
    from ..eval.selection import selection_summary

    return selection_summary(con_e)


def _print_selection(rows: list[dict]) -> None:
    """Exp-G / Exp-L: candidates, qualified and selected per dataset (every run prints it)."""
    if not rows:
        return
    t = Table(title="Exp-G / Exp-L query selection (single-metric, pairwise distinct neighbours)")
    for c in ("experiment", "dataset", "candidates", "qualified", "selected"):
        t.add_column(c, justify="right" if c in ("candidates", "qualified", "selected") else "left")
    for r in rows:
        t.add_row(r["experiment"], r["dataset"], str(r["candidates"]), str(r["qualified"]), str(r["selected"]))
    _out.console.print(t)


def stale_warnings(con, con_e, queries: list[dict]) -> list[str]:
    """Warnings when the stored query set does not belong to the warehouse being read: subjects the
    warehouse no longer has, or a warehouse file rebuilt after the queries were generated (their
    stored answers may then be stale)."""
    import datetime as _dt

    from ..paths import db_path

    out = []
    subjects = sorted({q["subject_id"] for q in queries})
    known = {r[0] for r in con.execute("select distinct subject_id from metric_values where list_contains(?, subject_id)",
                                       [subjects]).fetchall()}
    missing = [s for s in subjects if s not in known]
    if missing:
        out.append(f"{len(missing)} of the {len(subjects)} subjects of the stored queries are not in the warehouse "
                   f"(e.g. {missing[0]}): the query set was made from another build; run `wag eval queries` "
                   "again, or set WAG_EVAL_DB to a new file")
    made = con_e.execute("select max(created_at) from eval_queries").fetchone()[0]
    if made is not None and getattr(made, "tzinfo", None) is not None:
        made = made.astimezone().replace(tzinfo=None)
    try:
        built = _dt.datetime.fromtimestamp(db_path().stat().st_mtime)
    except OSError:
        built = None
    if made is not None and built is not None and built > made:
        out.append(f"the warehouse was rebuilt ({built:%Y-%m-%d %H:%M}) after the query set was generated "
                   f"({made:%Y-%m-%d %H:%M}); answers stored before are kept and skipped — start a new "
                   "WAG_EVAL_DB to measure the rebuilt warehouse")
    return out


@eval_app.command("run")
def run_cmd(
    experiment: Annotated[str, typer.Option("--experiment", help="main (Base/RAG/WAG), exp_g, exp_l or all.")] = "all",
    limit: Annotated[Optional[int], typer.Option("--limit", help="Answer only the first N queries (tuple order; gold questions come after the tuple questions).")] = None,
    offline: Annotated[bool, typer.Option("--offline", help="Offline answers (and parse) even when a model is configured.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON summary.")] = False,
) -> None:
    """Answer every stored query under each condition; stored answers are skipped (resumable)."""
    from ..catalog import load_catalog
    from ..db import warehouse
    from ..eval.run import RunStats, answer_query_tasks, experiments_for, group_by_query, plan
    from ..eval.store import connect_eval, read_queries

    cli = _out
    interrupted = False
    stats = RunStats()
    with failures(as_json):
        exps = experiments_for(experiment)
        if limit is not None and limit < 1:
            raise WagError("--limit must be at least 1", exit_code=2)
        client = _client(offline)
        con_e = connect_eval()
        try:
            queries = read_queries(con_e)
            if not queries:
                raise WagError("no queries yet: run `wag eval queries` (and `wag eval gold`) first", exit_code=2)
            if limit is not None:
                queries = queries[:limit]
            selected = {}
            with warehouse() as con:
                for exp in (e for e in exps if e != "main"):
                    selected[exp] = _ensure_selection(con, con_e, queries, exp)
            selection = _selection_rows(con_e)
            tasks = plan(con_e, queries, exps, stats, selected)
            started = time.perf_counter()
            with warehouse() as con:
                catalog = load_catalog(con)
                for warning in stale_warnings(con, con_e, queries):
                    cli.err_console.print(f"[yellow]warning:[/] {warning}", highlight=False, soft_wrap=True)
                with _progress() as prog:
                    bar = prog.add_task("answers" + (f" ({client.chat_model})" if client else " (offline)"),
                                        total=len(tasks))
                    try:
                        for group in group_by_query(tasks):
                            answer_query_tasks(con, con_e, group, catalog=catalog, client=client,
                                                parse_client=client, stats=stats,
                                                on_done=lambda _t: prog.advance(bar))
                    except KeyboardInterrupt:
                        interrupted = True
            elapsed = time.perf_counter() - started
        finally:
            con_e.close()
    summary = {"planned": stats.planned, "stored": stats.stored, "skipped_already_stored": stats.skipped,
               "errors": stats.errors, "interrupted": interrupted,
               "seconds": round(elapsed, 2), "by_condition": stats.by_condition,
               "model_usage": getattr(client, "usage", None) if client else None, "selection": selection}
    if as_json:
        cli.print_json(summary)
    else:
        _print_selection(selection)
        cli.console.print(
            f"{stats.stored} answers stored, {stats.skipped} already stored (skipped), {stats.errors} errors"
            f" in {elapsed:.1f} s" + (" — [yellow]interrupted; run again to resume[/]" if interrupted else ""))
        line = _usage_line(client)
        if line:
            cli.console.print(line)
    if interrupted:
        raise typer.Exit(130)


# --------------------------------------------------------------------------- gold


@eval_app.command("gold")
def gold_cmd(
    n: Annotated[int, typer.Option("--n", help="Number of gold questions to create.")] = 40,
    seed: Annotated[Optional[int], typer.Option("--seed", help="Seed of phrasings (default: the tuples' eval_seed).")] = None,
    score: Annotated[bool, typer.Option("--score", help="Score the stored answers of the gold questions instead.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Create the gold-track questions (exact answers from SQL), or with --score score the answers."""
    from ..catalog import load_catalog
    from ..db import warehouse
    from ..eval.gold import accuracy, build_gold, score_all
    from ..eval.store import connect_eval, replace_queries
    from ..eval.tuples import load_tuples

    cli = _out
    with failures(as_json):
        if score:
            con_e = connect_eval()
            try:
                written = score_all(con_e)
                acc = accuracy(con_e)
            finally:
                con_e.close()
            if not written:
                raise WagError("no answers to gold questions yet: run `wag eval gold` then `wag eval run`", exit_code=2)
            if as_json:
                cli.print_json({"scored": written, "accuracy": acc})
                return
            t = Table(title=f"Gold-track accuracy ({written} scored answers)")
            for c in ("condition", "category", "gold kind", "n", "accuracy"):
                t.add_column(c, justify="right" if c in ("n", "accuracy") else "left")
            for r in acc:
                t.add_row(r["condition"], r["category"] or "(all)", r["gold_kind"] or "(all)", str(r["n"]),
                          f"{r['accuracy']:.0%}", style="bold" if r["category"] is None else None)
            cli.console.print(t)
            return
        if n < 1:
            raise WagError("--n must be at least 1", exit_code=2)
        with warehouse() as con:
            tuples = load_tuples(con)
            catalog = load_catalog(con)
            seed_used = tuples[0].seed if seed is None else seed
            rows = build_gold(con, tuples, n=n, seed=seed_used, catalog=catalog)
        con_e = connect_eval()
        try:
            replace_queries(con_e, rows, kinds=("gold",))
        finally:
            con_e.close()
    by_kind: dict[str, int] = {}
    for r in rows:
        by_kind[r["gold_kind"]] = by_kind.get(r["gold_kind"], 0) + 1
    if as_json:
        cli.print_json({"n": len(rows), "by_kind": by_kind})
        return
    cli.console.print(f"{len(rows)} gold questions stored: "
                      + ", ".join(f"{k} {v}" for k, v in sorted(by_kind.items())))
