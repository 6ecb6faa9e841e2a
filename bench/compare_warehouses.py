"""Compare two WAG warehouse files table by table (issue 25: a restructure that must not change behaviour).

    python bench/compare_warehouses.py BEFORE.duckdb AFTER.duckdb [--schema main] [--all-schemas]
                                       [--rename OLD=NEW ...]

For every base table of the schema (default `main`, where the marts live) that exists in both files, prints
its row count in each and the number of rows in one and not the other, both ways, as multisets
(`except all`), over the columns the two tables share. A table present in only one file is listed,
not compared (renamed or new intermediate models are allowed); `--rename OLD=NEW` compares the
table OLD of the first file with NEW of the second (a model renamed by the restructure). A table whose column names or types
differ counts as a difference. Exit status 1 on any difference, 0 when every shared table holds the
same rows.

Floating-point values: DuckDB's parallel aggregates (sum, avg, stddev over several threads) do not
add in a fixed order, so two builds of the *same* code differ in the last bits (measured: main built
twice differs in 7 tables, e.g. md_s 0.1578947368421053 vs 0.15789473684210534). A table that differs
exactly is therefore compared again with a tolerance: both sides are ordered by every column (the
non-float ones first) and paired row by row; each FLOAT/DOUBLE pair must agree to
|a - b| <= tol * max(1, |a|, |b|) (default tol 1e-9; NULL = NULL and NaN = NaN), every other column exactly.
The verdict is `same` (bit-identical), `same~` (identical up to float noise) or `DIFFERENT`.
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


_FLOAT_TYPES = ("FLOAT", "DOUBLE", "REAL")
_ALIASES: dict[tuple[str, str], str] = {}   # (schema, old table) -> its name in the second file


def _tolerant_mismatches(con, rel_b: str, rel_a: str, columns: list[tuple[str, str]], tol: float) -> int:
    """Rows that differ after pairing both sides in the same total order (float columns within tol)."""
    floats = [c for c, t in columns if t.upper() in _FLOAT_TYPES]
    others = [c for c, t in columns if t.upper() not in _FLOAT_TYPES]
    order = ", ".join([f"{_q(c)} nulls first" for c in others + floats]) or "1"
    sel = ", ".join(_q(c) for c, _ in columns)
    conds = [f"b.{_q(c)} is not distinct from a.{_q(c)}" for c in others]
    for c in floats:
        bc, ac = f"b.{_q(c)}", f"a.{_q(c)}"
        conds.append(
            f"(({bc} is null and {ac} is null) or (isnan({bc}) and isnan({ac})) or "
            f"abs({bc} - {ac}) <= {tol!r} * greatest(1.0, abs({bc}), abs({ac})))"
        )
    cond = " and ".join(conds) or "true"
    return con.execute(
        f"""
        with b as (select row_number() over (order by {order}) as rn__, {sel} from {rel_b}),
             a as (select row_number() over (order by {order}) as rn__, {sel} from {rel_a})
        select count(*) from b full join a using (rn__)
        where b.rn__ is null or a.rn__ is null or not coalesce({cond}, false)
        """
    ).fetchone()[0]


def compare(before: str, after: str, schemas: list[str] | None = ("main",), tol: float = 1e-9,
            renames: dict[str, str] | None = None) -> int:
    """Print the report; return the number of tables that differ."""
    con = duckdb.connect()
    con.execute("attach ? as b (read_only)", [before])
    con.execute("attach ? as a (read_only)", [after])
    schemas = None if schemas is None else list(schemas)
    tb, ta = _tables(con, "b", schemas), _tables(con, "a", schemas)
    for old, new in (renames or {}).items():
        # compared under the old name; the new name is not listed on its own
        for (schema, table) in list(ta):
            if table == new and (schema, old) in tb:
                ta[(schema, old)] = ta.pop((schema, table))
                _ALIASES[(schema, old)] = new
    n_diff = 0
    width = max((len(f"{s}.{t}") for s, t in tb.keys() | ta.keys()), default=10)
    print(f"{'table':<{width}}  {'before':>9}  {'after':>9}  {'only_before':>11}  {'only_after':>10}  verdict")
    for key in sorted(tb.keys() | ta.keys()):
        name = f"{key[0]}.{key[1]}"
        if key not in ta or key not in tb:
            print(f"{name:<{width}}  {'(only in ' + ('before' if key in tb else 'after') + ')':>21}")
            continue
        rel_b, rel_a = f"b.{_q(key[0])}.{_q(key[1])}", f"a.{_q(key[0])}.{_q(_ALIASES.get(key, key[1]))}"
        if key in _ALIASES:
            name = f"{name} -> {_ALIASES[key]}"
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
        verdict = "same"
        if not same:
            verdict = "DIFFERENT"
            if not note and n_a == n_b:
                bad = _tolerant_mismatches(con, rel_b, rel_a, cols_b, tol)
                verdict = "same~" if bad == 0 else f"DIFFERENT ({bad} rows beyond tol {tol:g})"
        n_diff += verdict.startswith("DIFFERENT")
        print(f"{name:<{width}}  {n_b:>9}  {n_a:>9}  {only_b:>11}  {only_a:>10}  {verdict} {note}".rstrip())
    print(f"{n_diff} table(s) differ" if n_diff else "every shared table holds the same rows (same~: up to float noise)")
    return n_diff


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--schema", action="append", help="schema to compare (repeatable; default main)")
    ap.add_argument("--all-schemas", action="store_true", help="compare every schema")
    ap.add_argument("--rename", action="append", default=[], metavar="OLD=NEW",
                    help="compare table OLD of BEFORE with table NEW of AFTER (repeatable)")
    ap.add_argument("--tol", type=float, default=1e-9, help="relative tolerance for float columns (default 1e-9)")
    args = ap.parse_args(argv)
    schemas = None if args.all_schemas else (args.schema or ["main"])
    renames = dict(r.split("=", 1) for r in args.rename)
    return 1 if compare(args.before, args.after, schemas, args.tol, renames) else 0


if __name__ == "__main__":
    sys.exit(main())
