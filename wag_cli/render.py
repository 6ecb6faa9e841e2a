"""Rich rendering of `wag ask` results: the answer, then the retrieved subgraph as a table."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text


def _f(v, digits: int = 3) -> str:
    return "" if v is None else f"{v:.{digits}f}"


def print_answer(console: Console, result) -> None:
    sg = result.subgraph
    p = result.parsed
    window = "all" if sg.window_days is None else f"{sg.window_days} d"
    console.print(
        f"[dim]subject {sg.subject_id} · reference day {sg.reference_day} · window {window} · "
        f"openness {p.openness:.2f} ({p.category}) · method {sg.method} · parse {p.source}[/]"
    )
    title = f"Answer ({result.answer.source})"
    # the answer is text (a model's reply, lifelog entries), never Rich markup: "[x]" prints as written
    console.print(Panel(Text(result.answer.text), title=title, expand=True), highlight=False)
    if result.answer.note:
        console.print(f"[yellow]note:[/] {escape(result.answer.note)}")
    table = Table(title=f"Retrieved subgraph ({len(sg.primaries)} primary, {len(sg.neighbours)} related)")
    # "usual" is over every day up to the reference day (the window included: the mean and SD zeta
    # uses); the answer's "usual level before this period" leaves the window out, hence the header
    usual_col = f"usual (≤ {sg.reference_day})"
    for c in ("role", "node", "for", "rank", "w_global", "zeta", "w_local", "w_final", "days", "window mean", usual_col):
        table.add_column(c, justify="right" if c not in ("role", "node", "for") else "left")
    for n in sg.nodes:
        d = n.data
        usual = "" if d.usual_mean is None else f"{d.usual_mean:.1f} ± {d.usual_sd or 0:.1f}"
        table.add_row(
            n.role, n.metric_id, "" if n.role == "primary" else n.primary_node, str(n.rank),
            _f(n.w_global), _f(d.zeta, 2), _f(n.w_local), _f(n.w_final), str(d.n_window_days),
            "" if d.window_mean is None else f"{d.window_mean:.1f}", usual,
        )
    console.print(table)
