"""Retrieval on Spark (issue 12): ``wag_retrieve`` as a parameterised Spark SQL query.

On DuckDB the on-run-end hook creates the table macros of macros/analyst/ (``wag_node_window``,
``wag_pair_spearman``, ``wag_edge_weights_as_of``, ``wag_retrieve``). Spark has no table macros with
named defaults, so a Spark build stores the *same rendered macro source* (``create_wag_retrieve``,
rendered with the Spark target, so dispatched fragments such as the Spearman group key are Spark's)
in the table ``wag_sql_macros``. This module turns a macro call into one query:

* every parameter reference in a macro body is replaced by the call's argument (or the macro's
  default, i.e. the dbt var the build used), as a SQL expression;
* a nested table-macro call (``from wag_node_window(...) as ws``) becomes a subquery of that macro's
  expanded body;
* the result, written in DuckDB SQL, is transpiled to Spark SQL by sqlglot (the library the project
  already uses for ``tests/test_transpile.py``), with DuckDB's ``error(msg)`` as Spark's ``raise_error``.

The tables are read from a Spark warehouse folder (``<warehouse>/<schema>.db/<table>``, Parquet) as
temporary views, so the query also runs over a warehouse copied elsewhere. Known difference: DuckDB's
``list(x order by y)`` becomes ``collect_list(x)`` (sqlglot drops the order), which only affects the
``daily`` list of ``wag_node_window``, not a column of ``wag_retrieve``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import sqlglot
from sqlglot import exp

MACRO_HEADER = re.compile(r"create or replace macro (?:[\w\"`]+\.)?(\w+)\((.*?)\) as table\n", re.S)


@dataclass(frozen=True)
class Macro:
    name: str
    params: list[tuple[str, str | None]]   # (name, default SQL or None)
    body: str


def _split_top_level(text: str) -> list[str]:
    parts, depth, current, in_str = [], 0, [], False
    for ch in text:
        if ch == "'":
            in_str = not in_str
        if not in_str:
            if ch in "([":
                depth += 1
            elif ch in ")]":
                depth -= 1
            elif ch == "," and depth == 0:
                parts.append("".join(current))
                current = []
                continue
        current.append(ch)
    if "".join(current).strip():
        parts.append("".join(current))
    return [p.strip() for p in parts]


def parse_macros(sql_text: str) -> dict[str, Macro]:
    """The table macros of a rendered ``create_wag_retrieve`` text, by name."""
    headers = list(MACRO_HEADER.finditer(sql_text))
    if not headers:
        raise ValueError("no 'create or replace macro … as table' statement found")
    macros = {}
    for i, m in enumerate(headers):
        end = headers[i + 1].start() if i + 1 < len(headers) else len(sql_text)
        body = sql_text[m.end():end].strip().rstrip(";").strip()
        params = []
        for p in _split_top_level(m.group(2)):
            if ":=" in p:
                name, default = p.split(":=", 1)
                params.append((name.strip(), default.strip()))
            else:
                params.append((p.strip(), None))
        macros[m.group(1)] = Macro(m.group(1), params, body)
    return macros


def sql_literal(value: Any) -> str:
    """A DuckDB SQL literal for a Python argument (read back by sqlglot)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"cast({value!r} as double)"
    if isinstance(value, date):
        return f"date '{value.isoformat()}'"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(sql_literal(v) for v in value) + "]"
    return "'" + str(value).replace("'", "''") + "'"


def _parse(sql: str) -> exp.Expression:
    return sqlglot.parse_one(sql, read="duckdb")


def expand(macros: dict[str, Macro], name: str, args: dict[str, exp.Expression]) -> exp.Expression:
    """The body of macro ``name`` with its parameters bound to ``args`` (SQL expressions) or their
    defaults, and nested table-macro calls expanded into subqueries."""
    macro = macros[name]
    values: dict[str, exp.Expression] = {}
    for pname, default in macro.params:
        if pname in args:
            values[pname] = args[pname]
        elif default is not None:
            values[pname] = _parse(default)
        else:
            raise TypeError(f"{name}: missing argument {pname}")
    unknown = set(args) - set(values)
    if unknown:
        raise TypeError(f"{name}: unknown argument(s) {', '.join(sorted(unknown))}")
    # bind this macro's parameters first (also inside the arguments of nested calls), then expand the
    # nested table-macro calls, so a nested body is never bound with this macro's names
    tree = _bind(_parse(macro.body), values)
    for table in list(tree.find_all(exp.Table)):
        call = table.this
        if isinstance(call, exp.Anonymous) and call.name in macros:
            inner = macros[call.name]
            call_args: dict[str, exp.Expression] = {}
            positional = [a for a in call.expressions if not isinstance(a, (exp.PropertyEQ, exp.Kwarg))]
            for (pname, _), a in zip(inner.params, positional):
                call_args[pname] = a
            for a in call.expressions:
                if isinstance(a, (exp.PropertyEQ, exp.Kwarg)):
                    call_args[a.this.name] = a.expression
            sub = exp.Subquery(this=expand(macros, call.name, call_args), alias=table.args.get("alias"))
            table.replace(sub)
    return tree


def _bind(tree: exp.Expression, values: dict[str, exp.Expression]) -> exp.Expression:
    """Replace unqualified column references named as a parameter by the parameter's value."""
    def visit(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Column) and not node.table and node.name in values:
            return exp.Paren(this=values[node.name].copy())
        return node
    return tree.copy().transform(visit)


def _spark_fixups(node: exp.Expression) -> exp.Expression:
    if isinstance(node, exp.Anonymous) and node.name.lower() == "error":
        return exp.Anonymous(this="raise_error", expressions=node.expressions)
    return node


def macro_query(macros: dict[str, Macro], name: str, dialect: str = "spark", **arguments: Any) -> str:
    """The SQL of ``select * from <name>(arguments…)`` as one query in ``dialect``."""
    args = {k: _parse(sql_literal(v)) for k, v in arguments.items()}
    tree = expand(macros, name, args)
    if dialect == "spark":
        tree = tree.transform(_spark_fixups)
    return tree.sql(dialect=dialect)


def spark_session(master: str | None = None, driver_memory: str | None = None):
    """A local SparkSession for the generated queries: UTC, ANSI off as in the profile; Spark's own
    string-literal escapes (sqlglot writes Spark SQL with backslash escapes)."""
    import os

    from pyspark.sql import SparkSession

    return (SparkSession.builder
            .master(master or os.environ.get("WAG_SPARK_MASTER", "local[*]"))
            .config("spark.driver.memory", driver_memory or os.environ.get("WAG_SPARK_DRIVER_MEMORY", "4g"))
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.sql.ansi.enabled", "false")
            .config("spark.ui.enabled", "false")
            .getOrCreate())


def register_warehouse(spark, warehouse: Path, schema: str = "wag") -> list[str]:
    """Temporary views over every table folder of a Spark warehouse (``<warehouse>/<schema>.db/``)."""
    folder = Path(warehouse) / f"{schema}.db"
    if not folder.is_dir():
        raise FileNotFoundError(f"no Spark warehouse schema folder {folder} (build with `wag build --engine spark`)")
    names = []
    for table in sorted(p for p in folder.iterdir() if p.is_dir()):
        spark.sql(f"create or replace temporary view `{table.name}` using parquet options (path '{table}')")
        names.append(table.name)
    return names


def load_macros(spark) -> dict[str, Macro]:
    rows = spark.sql("select sql_text from wag_sql_macros").collect()
    if not rows:
        raise RuntimeError("wag_sql_macros is empty: rebuild the Spark warehouse")
    return parse_macros(rows[0][0])


def retrieve_rows(spark, macros: dict[str, Macro], **arguments: Any) -> list[dict]:
    """Rows of wag_retrieve(arguments…) on Spark, as dicts (column order of the macro)."""
    sql = macro_query(macros, "wag_retrieve", **arguments)
    return [r.asDict() for r in spark.sql(sql).collect()]
