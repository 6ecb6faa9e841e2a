"""The statement allowlist of the read-only SQL console (`wag sql`), checked on the sqlglot parse tree.

This is one of two independent guards (issue 9 item 3); the other is DuckDB's own configuration on
every read-only connection (:func:`wag_cli.db.connect`: ``enable_external_access = false``,
``lock_configuration = true``), which refuses file and network access even when a statement slips
through here. Either guard alone refuses ``COPY … TO``, ``ATTACH`` and ``read_csv('/etc/passwd')``.

Allowed: exactly one statement, of kind SELECT (including ``WITH …``, ``FROM …`` and set operations),
DESCRIBE, SHOW, SUMMARIZE or EXPLAIN [ANALYZE] of an allowed statement. Inside it, no table function
that reads files (``read_csv``, ``read_text``, ``read_json``, ``read_parquet``, ``glob``, ``*_scan``,
``sniff_csv`` …) and no table name that DuckDB would read as a file path (``FROM '/etc/passwd'``,
``FROM "x.parquet"``). Everything else (COPY, EXPORT, ATTACH, INSTALL, LOAD, SET, PRAGMA, CREATE,
INSERT, CALL …) is refused with a one-line :class:`~wag_cli.errors.UsageError`.
"""

from __future__ import annotations

import logging
import re

import sqlglot
from sqlglot import exp

from .errors import UsageError

ALLOWED_KINDS = "SELECT / WITH / DESCRIBE / SHOW / SUMMARIZE / EXPLAIN"

# Table functions that read files or the network; matched on the lower-cased function name.
_FILE_FUNCTION = re.compile(
    r"^(read_\w+|\w+_scan|scan_\w+|glob|sniff_csv|parquet_\w+|iceberg_\w+|delta_\w+|sqlite_\w+"
    r"|postgres_\w+|mysql_\w+|http\w*|s3\w*|load_\w+)$"
)
# sqlglot gives some readers their own expression class
_FILE_EXPRESSIONS = tuple(
    cls for cls in (getattr(exp, n, None) for n in ("ReadCSV", "ReadParquet", "ReadJSON")) if cls is not None
)
_PATHLIKE_TABLE = re.compile(r"[./\\:*?~]")


def _refuse(what: str) -> UsageError:
    return UsageError(f"wag sql is read-only: {what} is not allowed (only {ALLOWED_KINDS} statements "
                      "on the warehouse's tables and macros)")


def _function_name(node: exp.Expression) -> str:
    if isinstance(node, exp.Anonymous):
        return str(node.this).lower()
    return (node.sql_name() or type(node).__name__).lower()


def _check_tree(tree: exp.Expression) -> None:
    """Refuse file readers and path-like table names anywhere in an allowed statement."""
    for node in tree.walk():
        if _FILE_EXPRESSIONS and isinstance(node, _FILE_EXPRESSIONS):
            raise _refuse(f"the file reader {_function_name(node)}()")
        if isinstance(node, exp.Func) and _FILE_FUNCTION.match(_function_name(node)):
            raise _refuse(f"the file reader {_function_name(node)}()")
        if isinstance(node, exp.Table) and isinstance(node.this, exp.Identifier):
            if _PATHLIKE_TABLE.search(node.this.name):
                raise _refuse(f"reading the path {node.this.name!r} as a table")


def _check_statement(tree: exp.Expression | None, text: str) -> None:
    if tree is None:
        raise UsageError("wag sql: the query is empty; give one SELECT statement, e.g. "
                         "wag sql \"select * from subject_summary limit 5\"")
    if isinstance(tree, exp.Command) and str(tree.this).upper() == "EXPLAIN":
        inner = re.sub(r"^\s*explain(\s+analy[sz]e)?\b", "", text, count=1, flags=re.IGNORECASE)
        try:
            inner_tree = sqlglot.parse_one(inner, read="duckdb")
        except sqlglot.errors.ParseError as exc:
            raise UsageError(f"wag sql: cannot parse the statement after EXPLAIN "
                             f"({str(exc).splitlines()[0]})") from None
        return _check_statement(inner_tree, inner)
    if isinstance(tree, (exp.Select, exp.SetOperation, exp.Describe, exp.Show, exp.Summarize)):
        return _check_tree(tree)
    if isinstance(tree, (exp.Command, exp.Column, exp.Identifier)):
        kind = (text.split() or ["?"])[0].upper()
    else:
        kind = type(tree).__name__.upper()
    raise _refuse(f"{kind} (statement kind)")


def check_read_only_sql(query: str) -> None:
    """Raise :class:`UsageError` (one line) unless ``query`` is one allowed read-only statement.

    ``query``: the text given to `wag sql`. Empty text, several statements, unparseable text and
    every statement kind outside :data:`ALLOWED_KINDS` are refused; see the module docstring.
    """
    if not query or not query.strip().strip(";").strip():
        _check_statement(None, "")
    log = logging.getLogger("sqlglot")  # its "falling back to parsing as a Command" warning
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        trees = [t for t in sqlglot.parse(query, read="duckdb") if t is not None]
    except (sqlglot.errors.ParseError, sqlglot.errors.TokenError) as exc:
        detail = " ".join(re.sub(r"\x1b\[[0-9;]*m", "", str(exc)).split())[:160]
        raise UsageError(f"wag sql: cannot parse the query ({detail}); "
                         f"only {ALLOWED_KINDS} statements are accepted") from None
    finally:
        log.setLevel(level)
    if len(trees) > 1:
        raise UsageError(f"wag sql: give one statement, not {len(trees)} (separated by ';')")
    text = query.strip().rstrip(";")
    _check_statement(trees[0] if trees else None, text)
