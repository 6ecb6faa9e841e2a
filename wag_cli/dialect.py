"""CSV dialects of wide daily exports (issue 9 item 6; DESIGN.md §2 wide sources).

A wide export from a spreadsheet may use ``;`` as delimiter with decimal commas (``35,5``), start
with a UTF-8 byte-order mark, or quote its header names. :func:`resolve_wide_dialect` takes what a
source declares (``delim``, ``quote``, ``decimal``) and sniffs the rest with DuckDB's own CSV sniffer
(``sniff_csv``); the decimal separator is ``,`` when the delimiter is not a comma and numeric-looking
cells use a comma. The result is checked by reading the file with exactly that dialect, so a file
that cannot be read fails here, naming the file and the dialect tried, before dbt runs.
``models/staging/wide/stg_wide__cells.sql`` reads each source with the resolved dialect.
"""

from __future__ import annotations

import re
from pathlib import Path

from .errors import UsageError
from .safe_names import glob_escape, sql_string

REQUIRED = ("participant_id", "date")
_DECIMAL_COMMA = re.compile(r"^\s*-?\d+,\d+\s*$")


def _describe(d: dict) -> str:
    return f"delimiter {d['delim']!r}, quote {d['quote']!r}, decimal {d['decimal']!r}, UTF-8, header row"


def _check_header(con, p: str, dialect: dict) -> None:
    """Raise :class:`UsageError` (one line: the file, the column, the fix) when the header row of the
    wide CSV at ``p`` has an empty name or a name twice (compared trimmed, ignoring case, as metric
    names are matched). DuckDB would load a second ``steps`` as ``steps_1`` and an empty name as
    ``column3``, silently (issue 24 item 4)."""
    import duckdb

    lit = sql_string
    try:
        row = con.execute(f"select * from read_csv({lit(glob_escape(p))}, header = false, all_varchar = true, "
                          f"delim = {lit(dialect['delim'])}, quote = {lit(dialect['quote'])}, "
                          f"escape = {lit(dialect['quote'])}) limit 1").fetchone()
    except duckdb.Error:
        return  # the full read below names the failure
    seen: dict[str, int] = {}
    for i, cell in enumerate(row or (), start=1):
        name = (cell or "").lstrip("\ufeff").strip()
        if not name:
            raise UsageError(f"{p}: line 1 (the header), column {i} has no name; name it or delete the column "
                             "(a wide export needs one named column per metric)")
        key = name.casefold()
        if key in seen:
            raise UsageError(f"{p}: line 1 (the header) names column {name!r} twice (columns {seen[key]} and {i}); "
                             "rename or delete one of them (nothing was built)")
        seen[key] = i


def resolve_wide_dialect(path: Path, declared: dict | None = None) -> dict:
    """``{"delim", "quote", "decimal"}`` for the wide CSV at ``path``.

    ``declared``: keys of the source entry that fix the dialect (any of ``delim``, ``quote``,
    ``decimal``); the others are sniffed. Raises :class:`UsageError` (one line, naming the file and
    the dialect tried) when the file cannot be read with it or lacks ``participant_id``/``date``.
    """
    import duckdb

    declared = {k: v for k, v in (declared or {}).items() if k in ("delim", "quote", "decimal") and v}
    p = str(Path(path))
    con = duckdb.connect()
    try:
        dialect = {"delim": ",", "quote": '"', "decimal": "."}
        if not {"delim", "quote"} <= declared.keys():
            try:
                row = con.execute("select Delimiter, Quote from sniff_csv(?)", [glob_escape(p)]).fetchone()
            except duckdb.Error as exc:
                raise UsageError(f"{p}: cannot read as CSV (sniffing the delimiter and quote failed: "
                                 f"{str(exc).splitlines()[0]}); save it as UTF-8 CSV with a header row") from None
            dialect["delim"] = row[0] or ","
            dialect["quote"] = row[1] if row[1] and row[1] != "(empty)" else '"'
        dialect.update(declared)
        lit = sql_string
        sql = (f"select * from read_csv({lit(glob_escape(p))}, header = true, all_varchar = true, "
               f"delim = {lit(dialect['delim'])}, quote = {lit(dialect['quote'])}, escape = {lit(dialect['quote'])}) "
               "limit 200")
        _check_header(con, p, dialect)
        try:
            cur = con.execute(sql)
            cols = [d[0].strip() for d in cur.description]
            sample = cur.fetchall()
        except duckdb.Error as exc:
            raise UsageError(f"{p}: cannot read as CSV with {_describe(dialect)} "
                             f"({str(exc).splitlines()[0]}); declare the dialect of this source "
                             "(delim / quote / decimal) or re-save the file as UTF-8 CSV") from None
        missing = [c for c in REQUIRED if c not in cols]
        if missing:
            raise UsageError(f"{p}: read with {_describe(dialect)}, the header has no {', '.join(missing)} "
                             f"(it has {len(cols)} columns: {', '.join(cols[:8])}{', …' if len(cols) > 8 else ''}); "
                             "a wide export needs participant_id and date columns")
        if "decimal" not in declared and dialect["delim"] != ",":
            values = [v for r in sample for v in r if isinstance(v, str)]
            if any(_DECIMAL_COMMA.match(v) for v in values):
                dialect["decimal"] = ","
        return dialect
    finally:
        con.close()
