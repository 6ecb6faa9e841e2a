"""The `wag` command line (Typer): a thin layer that parses options, calls the modules that do the
work and prints Rich tables or one JSON object.

One module per command group — ``build`` (build, demo), ``inspect`` (subjects, sql, graph show),
``ask`` (parse, ask, mcp), ``graph`` (graph build/diff/add-metrics/plot, model check), ``eval_*``
(wag eval …) — decorating the apps of :mod:`.apps`; every command wraps its work in
:func:`.output.failures`, the one place a :class:`WagError` becomes a message and an exit code.
"""

from __future__ import annotations

# the import order is the order of `wag --help`
from . import build, inspect, ask  # noqa: F401,I001  (register commands)
from . import graph, eval_human, eval_judge, eval_queries  # noqa: F401,I001
from .apps import app, eval_app, graph_app, model_app

app.add_typer(graph_app, name="graph")
app.add_typer(eval_app, name="eval")
app.add_typer(model_app, name="model")

__all__ = ["app", "main"]


def main() -> None:  # pragma: no cover - console script entry
    app()
