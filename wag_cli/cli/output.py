"""Printing for the `wag` commands, and the one place where a :class:`WagError` becomes a message and
an exit code.

A leaf module: it imports nothing else of the CLI, so every command module can use it.

* ``console`` / ``err_console``: Rich consoles; when output is piped (no terminal, no COLUMNS) they are
  160 columns wide, not 80, so tables stay readable in logs.
* ``print_json(obj)``: one JSON document on stdout (dates as ISO strings, anything else ``str``).
* ``failures(as_json)``: a context manager around a command's work; a ``WagError`` raised inside
  prints ``error: <message>`` on stderr (as text, never Rich markup), with ``--json`` also
  ``{"error", "exit_code"}`` on stdout, and exits with the error's code (errors.py).
"""

from __future__ import annotations

import json
import os
import sys
from contextlib import contextmanager
from datetime import date, datetime

import typer
from rich.console import Console
from rich.markup import escape

from ..errors import UsageError, WagError


def _console(stderr: bool = False) -> Console:
    stream = sys.stderr if stderr else sys.stdout
    if not stream.isatty() and "COLUMNS" not in os.environ:
        return Console(stderr=stderr, width=160)
    return Console(stderr=stderr)


console = _console()
err_console = _console(stderr=True)


def _json_default(obj):
    if isinstance(obj, (date, datetime)):
        return obj.isoformat()
    return str(obj)


def print_json(obj) -> None:
    """Write ``obj`` as indented JSON (UTF-8 kept) and a newline to stdout."""
    sys.stdout.write(json.dumps(obj, default=_json_default, ensure_ascii=False, indent=2) + "\n")


def fail(exc: WagError, as_json: bool = False) -> None:
    """One line on stderr and the error's exit code; with --json also {"error", "exit_code"} on stdout."""
    if as_json:
        print_json({"error": str(exc), "exit_code": exc.exit_code})
    # the message is text, not markup: "[spark]" or a subject id with brackets must print as written
    err_console.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
    raise typer.Exit(exc.exit_code)


@contextmanager
def failures(as_json: bool = False):
    """Run a command's work; a :class:`WagError` inside ends the command through :func:`fail`."""
    try:
        yield
    except WagError as exc:
        fail(exc, as_json)


def parse_day(text: str | None, what: str = "--as-of") -> date | None:
    """``YYYY-MM-DD`` -> date (None stays None); anything else is a UsageError naming the option."""
    if text is None:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise UsageError(f"{what} {text!r} is not a date; use YYYY-MM-DD, e.g. 2020-01-20") from None


def cell(v) -> str:
    """A table cell: '' for NULL, floats to 3 decimals, anything else as text."""
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.3f}"
    return str(v)


def usage_line(client) -> str | None:
    """'model M: N requests, P prompt + C completion tokens' from the client's counter, or None."""
    usage = getattr(client, "usage", None) if client is not None else None
    if usage:
        return (f"model {client.chat_model}: {usage.get('requests', 0)} requests, "
                f"{usage.get('prompt_tokens', 0):,} prompt + {usage.get('completion_tokens', 0):,} completion tokens "
                "(as reported by the server)")
    calls = getattr(client, "http_calls", None) if client is not None else None
    return f"model {client.chat_model}: {calls} HTTP requests" if calls is not None else None
