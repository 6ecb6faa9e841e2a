"""Opening the warehouse (the DuckDB file that ``dbt build`` writes).

Every command except ``build``/``demo`` opens it read-only, with DuckDB's own guards on
(``enable_external_access = false``: no file or network access beyond the warehouse itself, so no
``COPY … TO``, ``ATTACH``, ``INSTALL`` or ``read_csv`` of other paths; ``lock_configuration = true``:
no ``SET``/``PRAGMA`` can lift that). The warehouse's tables and table macros work as usual.

DuckDB allows one writer per file; a ``dbt build`` run by hand (or any other writer) holds the lock,
while ``wag build`` writes into a staging file (:mod:`wag_cli.build`) and never blocks readers. A reader that finds
the file locked retries for ``WAG_LOCK_WAIT`` seconds (default 10; 0 = fail at once) with a spinner
on stderr, then raises :class:`DatabaseError` naming the process (PID) that holds the lock.
"""

from __future__ import annotations

import os
import re
import sys
import time
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Iterator

import duckdb

from .errors import DatabaseError, UsageError
from .paths import db_path

READ_ONLY_CONFIG = {"enable_external_access": False, "lock_configuration": True}
DEFAULT_LOCK_WAIT = 10.0   # seconds a reader waits for a build to release the warehouse
LOCK_POLL = 0.5            # seconds between attempts


def lock_wait_seconds() -> float:
    """``WAG_LOCK_WAIT`` (seconds, >= 0) or :data:`DEFAULT_LOCK_WAIT`; UsageError when malformed."""
    text = os.environ.get("WAG_LOCK_WAIT", "").strip()
    if not text:
        return DEFAULT_LOCK_WAIT
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:
        raise UsageError(f"WAG_LOCK_WAIT={text!r} is not a number of seconds >= 0; e.g. WAG_LOCK_WAIT=30")
    return value


def lock_holder(message: str) -> str:
    """The holder named in DuckDB's lock error ("… held in /usr/bin/python (PID 123) …"), as
    ``'PID 123 (/usr/bin/python)'``; ``'an unknown process'`` when the message names none."""
    m = re.search(r"held in (.*?) \(PID (\d+)\)", message)
    if m:
        return f"PID {m.group(2)} ({m.group(1)})"
    m = re.search(r"PID (\d+)", message)
    return f"PID {m.group(1)}" if m else "an unknown process"


def is_lock_error(exc: BaseException) -> bool:
    """True for DuckDB's "Could not set lock on file" (another process holds the file)."""
    return isinstance(exc, duckdb.IOException) and "lock" in str(exc).lower()


def connect(path: Path | None = None, *, read_only: bool = True,
            wait: float | None = None) -> duckdb.DuckDBPyConnection:
    """Open the warehouse; raise :class:`DatabaseError` with the fix when it is missing or locked.

    ``read_only=True`` (every reader) applies :data:`READ_ONLY_CONFIG`. ``wait``: seconds to keep
    retrying while another process holds the lock (default :func:`lock_wait_seconds`).
    """
    path = Path(path) if path else db_path()
    if read_only and not path.exists():
        raise DatabaseError(
            f"no warehouse at {path}: run `wag demo` (synthetic data) or `wag build` "
            "(with WAG_DATA_DIR pointing at your datasets) first"
        )
    config = dict(READ_ONLY_CONFIG) if read_only else {}
    wait = lock_wait_seconds() if wait is None else wait
    deadline = time.monotonic() + wait
    spinner = None
    try:
        while True:
            try:
                return duckdb.connect(str(path), read_only=read_only, config=config)
            except duckdb.IOException as exc:
                if not is_lock_error(exc):
                    raise DatabaseError(f"cannot open {path}: {str(exc).splitlines()[0]}") from None
                if time.monotonic() >= deadline:
                    waited = f" after waiting {wait:g} s (WAG_LOCK_WAIT)" if wait > 0 else ""
                    raise DatabaseError(
                        f"{path} is locked by {lock_holder(str(exc))}{waited} — a running `wag build`/"
                        "`dbt build`? Wait for it to finish, or raise WAG_LOCK_WAIT"
                    ) from None
                if spinner is None:
                    spinner = _spinner(f"{path.name} is locked by {lock_holder(str(exc))}; waiting up to {wait:g} s…")
                    spinner.__enter__()
                time.sleep(LOCK_POLL)
            except duckdb.ConnectionException as exc:
                raise DatabaseError(f"cannot open {path}: {str(exc).splitlines()[0]}") from None
    finally:
        if spinner is not None:
            spinner.__exit__(None, None, None)


def _spinner(message: str):
    """A Rich spinner on stderr when it is a terminal; otherwise one plain line."""
    from rich.console import Console

    if sys.stderr.isatty():
        return Console(stderr=True).status(message)
    sys.stderr.write(message + "\n")
    return nullcontext()


@contextmanager
def warehouse(path: Path | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
    """Read-only connection that is always closed (so a later build can take the lock)."""
    con = connect(path, read_only=True)
    try:
        yield con
    except duckdb.CatalogException as exc:
        raise DatabaseError(
            f"the warehouse at {path or db_path()} is incomplete ({str(exc).splitlines()[0]}); run `wag build`"
        ) from None
    finally:
        con.close()


def fetch_dicts(con: duckdb.DuckDBPyConnection, sql: str, params: list | dict | None = None) -> list[dict]:
    """Run a query and return its rows as dicts keyed by column name."""
    cur = con.execute(sql, params) if params is not None else con.execute(sql)
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, row)) for row in cur.fetchall()]


def execute_read_only(con: duckdb.DuckDBPyConnection, query: str,
                      max_rows: int | None = None) -> tuple[list[str], list[tuple], bool]:
    """Run one statement that passed :func:`wag_cli.sqlguard.check_read_only_sql` on a read-only
    connection (`wag sql`, the MCP tool ``run_sql``).

    Returns ``(columns, rows, more)``: at most ``max_rows`` rows (all when None) and whether the
    result had more. A statement without a result gives ``([], [], False)``. A DuckDB error becomes
    a one-line :class:`UsageError` ("SQL error: …").
    """
    try:
        cur = con.execute(query)
        if cur.description is None:
            return [], [], False
        cols = [d[0] for d in cur.description]
        if max_rows is None:
            return cols, cur.fetchall(), False
        rows = cur.fetchmany(max_rows + 1)
    except duckdb.Error as exc:
        raise UsageError(f"SQL error: {str(exc).splitlines()[0]}") from None
    return cols, rows[:max_rows], len(rows) > max_rows
