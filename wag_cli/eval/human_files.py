"""The human evaluation as files, for raters who work offline (DESIGN.md §10 "Human evaluation").

:func:`export_task` writes, per rater, the same task the web page shows (same anonymous labels and
per-rater order, :mod:`wag_cli.eval.human_store`):

* ``<rater>.md`` — a readable sheet: per query its number, the question, the person's context line
  and the answers A, B, ...;
* ``<rater>.jsonl`` — one line per query to fill in: ``{"rater", "experiment", "query_id",
  "position", "labels", "Overall": [], "Insightfulness": [], ...}``; a rater replaces ``[]`` by the
  labels best first (``["B", "A", "C"]``) or by ``{"A": 2, "B": 1, "C": 3}``. Overall is required for a
  query to count; a query left with every criterion empty is skipped (not ranked yet).

:func:`import_files` validates every line of every file before storing anything: a JSON object, the
rater id of the file's first line on every line, a sampled (experiment, query_id) once per file, the
labels exported for it, known criteria and, per criterion, a permutation of the labels without ties.
Errors name the file and line (``alice.jsonl:7: Overall: B listed more than once``).
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb

from ..errors import UsageError
from .human_store import CRITERIA, check_rater, check_ranking, load_item, store_ranking, task

META_FIELDS = ("rater", "experiment", "query_id", "position", "labels")
MAX_ERRORS = 20


def _quote(text: str) -> str:
    return "\n".join("> " + line if line.strip() else ">" for line in (text or "").splitlines()) or ">"


def export_task(con: duckdb.DuckDBPyConnection, rater: str, out_dir: Path,
                experiments: list[str] | None = None) -> tuple[Path, Path, int]:
    """Write ``<rater>.md`` and ``<rater>.jsonl`` in ``out_dir`` (DESIGN.md §10); returns
    ``(markdown path, jsonl path, number of queries)``. Raises :class:`UsageError` when no sample is
    stored (``wag eval human sample`` first)."""
    rater = check_rater(rater)
    pairs = task(con, experiments)
    if not pairs:
        raise UsageError("no human-evaluation sample stored: run `wag eval human sample` first")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    md_path, jl_path = out_dir / f"{rater}.md", out_dir / f"{rater}.jsonl"
    md = [f"# WAG human evaluation — rater {rater}", "",
          f"{len(pairs)} queries. For each query, rank the answers from best to worst, without ties, on "
          "**Overall** (required) and, if you wish, on " + ", ".join(CRITERIA[1:]) + ".",
          f"Write your rankings in `{jl_path.name}`: on the query's line replace `[]` by the labels best "
          'first, e.g. `"Overall": ["B", "A", "C"]`. Leave a query\'s lists empty to skip it. Do not change '
          "the rater, experiment, query_id or labels fields.", ""]
    lines = []
    for pos, (exp, qid) in enumerate(pairs, start=1):
        item = load_item(con, exp, qid, rater, position=pos, total=len(pairs))
        md += [f"## {pos} of {len(pairs)} — `{qid}` ({exp})", "", f"**Question:** {item.question}", "",
               f"**Person:** {item.subject_id}" + (f" ({item.dataset})" if item.dataset else "")
               + f" · **period:** {item.period}", ""]
        for lab, text in zip(item.labels, item.answers):
            md += [f"### Answer {lab}", "", _quote(text), ""]
        row = {"rater": rater, "experiment": exp, "query_id": qid, "position": pos, "labels": item.labels}
        row.update({c: [] for c in CRITERIA})
        lines.append(json.dumps(row, ensure_ascii=False))
    md_path.write_text("\n".join(md) + "\n", encoding="utf-8")
    jl_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return md_path, jl_path, len(pairs)


def _check_file(con: duckdb.DuckDBPyConnection, path: Path, sampled: set[tuple[str, str]],
                errors: list[str]) -> tuple[str | None, list[tuple]]:
    """Validated ``(rater, [(item, rankings)])`` of one filled file; problems appended to ``errors``."""
    rater: str | None = None
    good: list[tuple] = []
    seen: set[tuple[str, str]] = set()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        errors.append(f"{path.name}: cannot read: {exc}")
        return None, []
    for lineno, line in enumerate(text.splitlines(), start=1):
        where = f"{path.name}:{lineno}"
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})")
            continue
        if not isinstance(row, dict):
            errors.append(f"{where}: expected a JSON object")
            continue
        try:
            r = check_rater(str(row.get("rater", "")))
        except UsageError as exc:
            errors.append(f"{where}: {exc}")
            continue
        if rater is None:
            rater = r
        elif r != rater:
            errors.append(f"{where}: rater {r!r} differs from {rater!r} on the file's first line")
            continue
        key = (str(row.get("experiment")), str(row.get("query_id")))
        if key not in sampled:
            errors.append(f"{where}: unknown query {key[1]!r} of experiment {key[0]!r} (not in the sample)")
            continue
        if key in seen:
            errors.append(f"{where}: query {key[1]!r} ({key[0]}) appears twice in the file")
            continue
        seen.add(key)
        item = load_item(con, key[0], key[1], rater)
        if "labels" in row and row["labels"] != item.labels:
            errors.append(f"{where}: labels {row['labels']!r} are not the exported {item.labels!r}")
            continue
        unknown = [k for k in row if k not in META_FIELDS and k not in CRITERIA]
        if unknown:
            errors.append(f"{where}: unknown field {unknown[0]!r} (criteria: {', '.join(CRITERIA)})")
            continue
        given = {c: row[c] for c in CRITERIA if c in row}
        if all(v in (None, [], {}, "") for v in given.values()):
            continue                                   # not ranked yet
        rankings, reason = check_ranking(item.labels, given)
        if reason:
            errors.append(f"{where}: {reason}")
            continue
        good.append((item, rankings))
    if rater is None and not any(e.startswith(path.name) for e in errors):
        errors.append(f"{path.name}: no rankings (the file is empty)")
    return rater, good


def import_files(con: duckdb.DuckDBPyConnection, paths: list[Path]) -> list[dict]:
    """Validate every filled file, then store their rankings (source ``file:<name>``), replacing what
    the same rater stored for the same queries (DESIGN.md §10). All or nothing: any error raises
    :class:`UsageError` listing up to 20 problems as ``file:line: reason`` and stores nothing.
    Returns per file ``{"file", "rater", "ranked", "lines"}``."""
    sampled = set(task(con))
    if not sampled:
        raise UsageError("no human-evaluation sample stored: run `wag eval human sample` first")
    errors: list[str] = []
    checked = []
    for p in paths:
        p = Path(p)
        rater, good = _check_file(con, p, sampled, errors)
        checked.append((p, rater, good))
    if errors:
        more = f"\n... and {len(errors) - MAX_ERRORS} more" if len(errors) > MAX_ERRORS else ""
        raise UsageError("nothing imported; fix these lines:\n" + "\n".join(errors[:MAX_ERRORS]) + more)
    out = []
    for p, rater, good in checked:
        for item, rankings in good:
            store_ranking(con, item, rater, rankings, f"file:{p.name}")
        out.append({"file": str(p), "rater": rater, "ranked": len(good),
                    "lines": sum(1 for line in p.read_text(encoding="utf-8").splitlines() if line.strip())})
    return out
