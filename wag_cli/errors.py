"""Errors the CLI turns into a one-line message and a non-zero exit code (no traceback)."""

from __future__ import annotations


class WagError(Exception):
    """A user-facing error: ``str(err)`` is the message, ``exit_code`` the process exit status."""

    exit_code = 1

    def __init__(self, message: str, *, exit_code: int | None = None):
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code


class UsageError(WagError):
    """The input cannot be used as given (unknown subject, empty question, bad date...)."""

    exit_code = 2


class DatabaseError(WagError):
    """The warehouse is missing, locked by a running build, or lacks a table."""

    exit_code = 3
