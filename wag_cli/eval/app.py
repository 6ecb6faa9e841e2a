"""The ``wag eval`` Typer sub-app. Commands live in ``commands_*.py`` modules that decorate
:data:`eval_app`; :mod:`wag_cli.cli` imports them so they register."""

from __future__ import annotations

import typer

eval_app = typer.Typer(
    help="Evaluate answers (DESIGN.md §10): build the query set, run the conditions, judge, report.",
    no_args_is_help=True,
)
