"""Helpers shared by the ``wag eval`` command modules: the CLI's console and error handling, and
the model-usage line printed after a step that called a model."""

from __future__ import annotations

from contextlib import contextmanager

from ..errors import WagError


def cli():
    """The :mod:`wag_cli.cli` module (imported lazily: it imports this package while it loads)."""
    from .. import cli as module

    return module


@contextmanager
def errors(as_json: bool = False):
    """Turn a :class:`WagError` into the CLI's one-line message and exit code."""
    try:
        yield
    except WagError as exc:
        cli()._fail(exc, as_json)


def usage_line(client) -> str | None:
    """'model M: N requests, P prompt + C completion tokens' from the client's counter, or None."""
    usage = getattr(client, "usage", None) if client is not None else None
    if usage:
        return (f"model {client.chat_model}: {usage.get('requests', 0)} requests, "
                f"{usage.get('prompt_tokens', 0):,} prompt + {usage.get('completion_tokens', 0):,} completion tokens "
                "(as reported by the server)")
    calls = getattr(client, "http_calls", None) if client is not None else None
    return f"model {client.chat_model}: {calls} HTTP requests" if calls is not None else None
