"""Opening the warehouse (the DuckDB file that ``dbt build`` writes).

Every command except ``build``/``demo`` opens it read-only. DuckDB allows one writer per file and a
running ``dbt build`` holds the lock, so a locked file becomes a clear :class:`DatabaseError`.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import duckdb

from .errors import DatabaseError
from .paths import db_path


def connect(path: Path | None = None, *, read_only: bool = True) -> duckdb.DuckDBPyConnection:
    """Open the warehouse; raise :class:`DatabaseError` with the fix when it is missing or locked."""
    path = Path(path) if path else db_path()
    if read_only and not path.exists():
        raise DatabaseError(
            f"no warehouse at {path}: run `wag demo` (synthetic data) or `wag build` "
            "(with WAG_DATA_DIR pointing at your datasets) first"
        )
    try:
        return duckdb.connect(str(path), read_only=read_only)
    except duckdb.IOException as exc:
        if "lock" in str(exc).lower():
            raise DatabaseError(
                f"{path} is locked by another process (a running `wag build`/`dbt build`?); "
                "wait for it to finish and try again"
            ) from None
        raise DatabaseError(f"cannot open {path}: {exc}") from None


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
