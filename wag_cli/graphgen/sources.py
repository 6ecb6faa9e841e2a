"""Inputs of graph construction: metric names from a file, unmapped wide columns from the warehouse."""

from __future__ import annotations

import csv
from importlib import resources
from pathlib import Path

from ..errors import UsageError
from .propose import Column

SAMPLE_VALUES = 500   #: values read per column to infer unit and kind


def _sql(name: str) -> str:
    return resources.files("wag_cli").joinpath("sql", name).read_text(encoding="utf-8")


def metrics_from_file(path: Path) -> list[dict]:
    """``[{"name": ...}]`` from a text file (one name per line, '#' comments) or a CSV with a ``name``
    column (other columns become hints). UsageError for a missing or empty file."""
    path = Path(path)
    if not path.is_file():
        raise UsageError(f"--metrics-file {path}: no such file")
    text = path.read_text(encoding="utf-8")
    first = text.splitlines()[0] if text.strip() else ""
    if "," in first and "name" in [c.strip() for c in first.split(",")]:
        rows = [{k.strip(): (v or "").strip() for k, v in r.items() if k} for r in csv.DictReader(text.splitlines())]
        out = [r for r in rows if r.get("name")]
    else:
        out = [{"name": ln.strip()} for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if not out:
        raise UsageError(f"--metrics-file {path}: no metric names in it")
    return out


def column_values(path: Path, column: str, limit: int = SAMPLE_VALUES) -> list[str]:
    """Up to ``limit`` non-empty cells of ``column`` in the wide CSV at ``path`` (text)."""
    from ..dialect import resolve_wide_dialect

    dialect = resolve_wide_dialect(Path(path).resolve(), {"path": str(path)})
    out = []
    with open(path, newline="", encoding="utf-8-sig") as fh:
        reader = csv.DictReader(fh, delimiter=dialect.get("delim") or ",", quotechar=dialect.get("quote") or '"')
        for row in reader:
            v = (row.get(column) or "").strip()
            if v:
                out.append(v.replace(",", ".") if dialect.get("decimal") == "," else v)
                if len(out) >= limit:
                    break
    return out


def unmapped_columns(con, wide: dict[str, Path] | None = None) -> list[Column]:
    """The rows of ``stg_wide__unmapped_columns`` as :class:`Column`; with ``wide`` (dataset -> CSV
    path, as given to ``wag build --wide``) each column also gets sample values. UsageError when the
    warehouse has no such table."""
    try:
        rows = con.execute(_sql("unmapped_columns.sql")).fetchall()
    except Exception as exc:  # noqa: BLE001 - an old or foreign warehouse
        raise UsageError(f"the warehouse has no stg_wide__unmapped_columns ({str(exc).splitlines()[0]}); "
                         "run `wag build --wide NAME=PATH` first") from None
    out = []
    for dataset, column, n in rows:
        path = (wide or {}).get(dataset)
        out.append(Column(dataset, column, int(n or 0), column_values(path, column) if path else []))
    return out
