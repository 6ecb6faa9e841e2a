"""Compare two WAG warehouse files table by table (issue 25: a restructure that must not change behaviour).

    python bench/compare_warehouses.py BEFORE.duckdb AFTER.duckdb [--schema main] [--all-schemas]

For every base table of the schema (default `main`, where the marts live) that exists in both files, prints
its row count in each and the number of rows in one and not the other, both ways, as multisets
(`except all`), over the columns the two tables share. A table present in only one file is listed,
not compared (renamed or new intermediate models are allowed). A table whose column names or types
differ counts as a difference. Exit status 1 on any difference, 0 when every shared table holds the
same rows.

Floating-point values are compared exactly: the same SQL over the same data gives the same bits,
so any difference is worth a look.
"""

from __future__ import annotations

import argparse
import sys

import duckdb


def _tables(con: duckdb.DuckDBPyConnection, catalog: str, schemas: list[str] | None) -> dict[tuple[str, str], list[tuple[str, str]]]:
    where = "" if schemas is None else "and table_schema in (" + ", ".join("?" for _ in schemas) + ")"
    rows = con.execute(
        f"""
        select c.table_schema, c.table_name, c.column_name, c.data_type
        from information_schema.columns c
        join information_schema.tables t using (table_catalog, table_schema, table_name)
        where c.table_catalog = ? and t.table_type = 'BASE TABLE' {where}
        order by c.table_schema, c.table_name, c.ordinal_position
        """,
        [catalog] + (schemas or []),
    ).fetchall()
    out: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for schema, table, column, dtype in rows:
        out.setdefault((schema, table), []).append((column, dtype))
    return out


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def compare(before: str, after: str, schemas: list[str] | None = ("main",)) -> int:
    """Print the report; return the number of tables that differ."""
    con = duckdb.connect()
    con.execute("attach ? as b (read_only)", [before])
    con.execute("attach ? as a (read_only)", [after])
    schemas = None if schemas is None else list(schemas)
    tb, ta = _tables(con, "b", schemas), _tables(con, "a", schemas)
    n_diff = 0
    width = max((len(f"{s}.{t}") for s, t in tb.keys() | ta.keys()), default=10)
    print(f"{'table':<{width}}  {'before':>9}  {'after':>9}  {'only_before':>11}  {'only_after':>10}  verdict")
    for key in sorted(tb.keys() | ta.keys()):
        name = f"{key[0]}.{key[1]}"
        if key not in ta or key not in tb:
            print(f"{name:<{width}}  {'(only in ' + ('before' if key in tb else 'after') + ')':>21}")
            continue
        rel_b, rel_a = f"b.{_q(key[0])}.{_q(key[1])}", f"a.{_q(key[0])}.{_q(key[1])}"
        n_b = con.execute(f"select count(*) from {rel_b}").fetchone()[0]
        n_a = con.execute(f"select count(*) from {rel_a}").fetchone()[0]
        cols_b, cols_a = tb[key], ta[key]
        note = ""
        if cols_b != cols_a:
            note = "columns differ: " + str(sorted(set(cols_b) ^ set(cols_a)))
        shared = [c for c, _ in cols_b if c in {c2 for c2, _ in cols_a}]
        cols = ", ".join(_q(c) for c in shared)
        only_b = con.execute(f"select count(*) from (select {cols} from {rel_b} except all select {cols} from {rel_a})").fetchone()[0]
        only_a = con.execute(f"select count(*) from (select {cols} from {rel_a} except all select {cols} from {rel_b})").fetchone()[0]
        same = only_b == 0 and only_a == 0 and n_a == n_b and not note
        n_diff += not same
        print(f"{name:<{width}}  {n_b:>9}  {n_a:>9}  {only_b:>11}  {only_a:>10}  {'same' if same else 'DIFFERENT'} {note}".rstrip())
    print(f"{n_diff} table(s) differ" if n_diff else "every shared table holds the same rows")
    return n_diff


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--schema", action="append", help="schema to compare (repeatable; default main)")
    ap.add_argument("--all-schemas", action="store_true", help="compare every schema")
    args = ap.parse_args(argv)
    schemas = None if args.all_schemas else (args.schema or ["main"])
    return 1 if compare(args.before, args.after, schemas) else 0


if __name__ == "__main__":
    sys.exit(main())
