"""The Typer apps of `wag`: the root and its command groups. Command modules decorate these; the
package's ``__init__`` imports every command module so the commands register (a leaf module)."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="wag",
    help="WAG warehouse: ask questions about wearable data through a personal knowledge graph.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
graph_app = typer.Typer(help="Inspect, grow, compare and plot the knowledge graph.", no_args_is_help=True)
eval_app = typer.Typer(
    help="Evaluate answers (DESIGN.md §10): build the query set, run the conditions, judge, report.",
    no_args_is_help=True,
)
model_app = typer.Typer(help="Model settings and server checks.", no_args_is_help=True)
