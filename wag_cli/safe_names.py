"""Names from the file system are data, never SQL (issue 24; DESIGN.md §2).

A person's export, a shared drive or a downloaded dataset decides the names of the folders and files
a build reads: ``o'brien``, ``x'; copy … to 'marker.csv' --``, ``Ålesund``. Two rules keep them data:

* :func:`sql_string` is the one way Python turns such a text into SQL when a bound parameter cannot be
  used (a reader option); its dbt twin is the macro ``wag_sql_string`` (macros/engine_sql.sql). Both
  double every ``'``; DuckDB string literals read backslashes literally.
* :func:`check_data_names` refuses, before dbt runs, the names no reader can take as a subject id:
  a control character (a newline or tab would split a subject id across lines of every report) and,
  on POSIX, a backslash (DuckDB's glob does not list such a file: the data would vanish silently).
  Quotes, semicolons, ``--``, spaces, glob characters and non-ASCII letters are read as they are.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .errors import UsageError

_UNREADABLE = re.compile(r"[\x00-\x1f\x7f]" + (r"|\\" if os.sep == "/" else ""))
_WHAT = {"\n": "a newline", "\r": "a carriage return", "\t": "a tab", "\\": "a backslash"}


def sql_string(text: str) -> str:
    """``text`` as a DuckDB SQL string literal (``'…'`` with each ``'`` doubled).

    Use a bound parameter (``con.execute(sql, [text])``) wherever DuckDB accepts one; this is for the
    places it does not. The dbt macro ``wag_sql_string`` applies the same rule.
    """
    return "'" + str(text).replace("'", "''") + "'"


def glob_escape(path: str) -> str:
    """``path`` as a DuckDB file-reader argument that matches exactly that file: DuckDB reads a
    reader's path as a glob pattern, so ``[``, ``*`` and ``?`` become ``[[]``, ``[*]``, ``[?]``
    (the macro ``wag_glob_literal`` applies the same rule)."""
    return str(path).replace("[", "[[]").replace("*", "[*]").replace("?", "[?]")


def check_data_names(data_dir: Path, folders: tuple[str, ...]) -> None:
    """Raise :class:`UsageError` naming the first path under ``data_dir/<folder>`` (for each of
    ``folders``) whose file or folder name holds a control character or (POSIX) a backslash.

    The message names the path (as Python's repr, so the character shows), what is wrong with it, and
    the fix (rename it). Every other name is accepted; nothing is read or written.
    """
    roots = [data_dir / f for f in folders if (data_dir / f).is_dir()]
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            for name in sorted(dirnames) + sorted(filenames):
                bad = _UNREADABLE.search(name)
                if bad:
                    path = Path(dirpath, name).relative_to(data_dir)
                    what = _WHAT.get(bad.group(), f"the control character {bad.group()!r}")
                    raise UsageError(
                        f"{str(path)!r} under {data_dir}: its name holds {what}, which no reader can take "
                        "as part of a subject id or file path; rename it (nothing was built)")
