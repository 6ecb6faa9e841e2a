"""Which rows a failed dbt data test found, in words (issue 24 item 3).

dbt reports a failed data test as "Got 1 result, configured to fail if != 0", naming no subject, day
or file. After the build, :func:`describe_failing_rows` runs the test's compiled query once more
against the (not swapped-in) build file and names the first failing rows by the columns that locate
a record: model-level keys (dataset, subject_id, metric_id, day, raw_field), the value, and the file
where a table carries one; for the not_null_columns test, the column and its count of NULLs. Read-only; a query that cannot run gives an empty text.
"""

from __future__ import annotations

from pathlib import Path

# column_name, n_null_rows: the rows of the not_null_columns test (macros/tests.sql), one per column with NULLs
LOCATING = ("file", "filename", "dataset", "subject_id", "metric_id", "day", "raw_field", "value", "rejection_reason",
            "column_name", "n_null_rows")


def describe_failing_rows(database: Path, compiled_sql: str | None, limit: int = 3) -> str:
    """``"; first failing rows: subject_id=pmdata:p01, day=2020-01-02, value=-20 | …"`` for the data
    test whose compiled SQL is ``compiled_sql``, run read-only on ``database``; ``""`` when the query
    has no locating column, no row, or cannot run."""
    import duckdb

    if not compiled_sql or not Path(database).exists():
        return ""
    try:
        con = duckdb.connect(str(database), read_only=True)
    except duckdb.Error:
        return ""
    try:
        cur = con.execute(f"select * from ({compiled_sql}) as failing limit {int(limit)}")
        names = [d[0] for d in cur.description]
        rows = cur.fetchall()
    except duckdb.Error:
        return ""
    finally:
        con.close()
    keep = [i for i, n in enumerate(names) if n in LOCATING]
    if not keep or not rows:
        return ""
    shown = [", ".join(f"{names[i]}={row[i]}" for i in keep if row[i] is not None) for row in rows]
    return "; first failing rows: " + " | ".join(s for s in shown if s)
