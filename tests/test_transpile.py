"""DESIGN.md §1 scale-out: outside the dispatched file-reader macros, the models are SQL that sqlglot
transpiles to Spark SQL. Every compiled intermediate and mart model of the real build must transpile
without an unsupported construct."""

from __future__ import annotations

import sqlglot
from sqlglot.errors import ErrorLevel


def test_intermediate_and_marts_transpile_to_spark(built_db):
    compiled = built_db.parent / "target" / "compiled" / "wag" / "models"
    files = sorted(list((compiled / "intermediate").glob("*.sql")) + list((compiled / "marts").glob("*.sql")))
    assert len(files) >= 15
    for f in files:
        out = sqlglot.transpile(f.read_text(), read="duckdb", write="spark",
                                error_level=ErrorLevel.RAISE, unsupported_level=ErrorLevel.RAISE)
        assert out and out[0].strip(), f.name
