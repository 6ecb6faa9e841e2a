"""`wag subjects`, `wag sql` and `wag graph show`: read the warehouse."""

from __future__ import annotations

from typing import Annotated, Optional

import typer
from rich.table import Table
from rich.text import Text

from ..errors import UsageError
from .apps import app, graph_app
from .output import cell, console, failures, print_json


@app.command()
def subjects(
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """List subjects with their days, metrics and date range."""
    from ..db import fetch_dicts, warehouse
    from ..summary import SUBJECTS_SQL

    with failures(as_json):
        with warehouse() as con:
            rows = fetch_dicts(con, SUBJECTS_SQL)
    if as_json:
        print_json({"subjects": rows})
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
    from ..db import execute_read_only, warehouse
    from ..sqlguard import check_read_only_sql

    with failures(as_json):
        if limit < 0:
            raise UsageError(f"--limit {limit}: give a number of rows >= 0, e.g. --limit 20")
        check_read_only_sql(query)
        with warehouse() as con:
            cols, rows, _ = execute_read_only(con, query)
        if not cols:
            return
    if as_json:
        print_json([dict(zip(cols, r)) for r in rows])
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
    from ..db import warehouse
    from ..graph import node_view

    with failures(as_json):
        with warehouse() as con:
            view = node_view(con, node, subject)
    if as_json:
        print_json(view)
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
            table.add_row(*[cell(r.get(c)) for c in cols])
    else:
        table = Table(title=f"{len(view['edges'])} prior edges of {n['metric_id']}")
        for c in ("neighbour", "w_prior", "confidence", "relationship"):
            table.add_column(c)
        for r in view["edges"]:
            table.add_row(r["neighbour"], cell(r["w_prior"]), r["confidence"], r["relationship"])
    console.print(table)
