"""Apple Health ``export.xml`` -> Parquet, streamed (DESIGN.md §2 "A person's own export", issue 28).

An Apple Health export is 1-4 GB of XML. This module reads it as a stream — from
``apple_health/<person>/export.zip`` (the zip member is read as a stream, never extracted) or from the
unzipped ``apple_health_export/export.xml`` — and writes its ``Record`` elements, unchanged text, to
Parquet part files that the staging models read (``stg_apple_health__records``). Every rule (type
mapping, local day, sums per source, sleep nights) is SQL in the staging models; this module only
streams and records what it did with each file.

Safety and robustness:

* The document type declaration is cut out of the stream before the parser sees it
  (:class:`DoctypeStripper`): the iOS 16 exports' malformed internal DTD ("syntax error: line 156")
  is never parsed, and an ``<!ENTITY … SYSTEM …>`` in a hostile file is never declared, so nothing
  outside the file is ever read. The declarations found there are reported (``external_entities``).
* The parser is the standard library's expat with a foreign DTD announced and no external entity
  handler: a reference to an entity the (removed) DTD declared expands to nothing (in an attribute)
  or is skipped and counted (``skipped_entity_refs``); it is never resolved.
* Memory is bounded: a batch of :data:`BATCH_ROWS` records is written to its own Parquet part by
  DuckDB, then dropped. Measured in bench/RESULTS.md (synthetic 2 GB export).

Why not a library: ``apple-health-parser`` 2.0.5 loads the whole file (``lxml.etree.parse``), and
lxml/defusedxml would still need the DTD removed first (libxml2 parses the internal subset, and
defusedxml refuses any entity declaration); expat on the stripped stream needs no dependency.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import time
import zipfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import BinaryIO, Iterator

import pyexpat

#: Records per Parquet part (about 15 MB of Python strings at a time; bench/RESULTS.md).
BATCH_ROWS = 50_000
#: Bytes read from the file per parser call.
CHUNK_BYTES = 1 << 20
#: The prolog (XML declaration + DOCTYPE) must end within this many bytes.
MAX_PROLOG_BYTES = 64 << 20
#: Columns of a part file, all text except line (BIGINT) and in_correlation (BOOLEAN).
COLUMNS = ("line", "record_type", "source_name", "unit", "value", "start_date", "end_date", "in_correlation")
#: Bump when the part layout changes: cached parts of an older layout are rebuilt.
LAYOUT_VERSION = "1"

_ENTITY = re.compile(rb"<!ENTITY\s+(%\s+)?([^\s>]+)\s+(?:(SYSTEM|PUBLIC)\s+)?", re.IGNORECASE)
_DOCTYPE_END = re.compile(rb"\]\s*>")


@dataclass
class ExportReport:
    """What was done with one person's export (one row of ``stg_apple_health__files``)."""

    person: str
    file: str
    status: str = "read"                 # read | failed
    records: int = 0
    records_in_correlation: int = 0
    parts: list[str] = field(default_factory=list)
    doctype: str = "none"                # none | removed (N declarations)
    external_entities: list[str] = field(default_factory=list)
    skipped_entity_refs: int = 0
    seconds: float = 0.0
    note: str = ""


class DoctypeStripper:
    """A binary stream over ``raw`` with the ``<!DOCTYPE …>`` declaration (and its internal subset)
    removed; the removed text's entity declarations are kept in :attr:`entities` as
    ``(name, 'SYSTEM' | 'PUBLIC' | 'internal')``."""

    def __init__(self, raw: BinaryIO):
        self.raw = raw
        self.entities: list[tuple[str, str]] = []
        self.doctype_found = False
        self._head = self._strip_prolog()

    def _strip_prolog(self) -> bytes:
        buf = b""
        while True:
            chunk = self.raw.read(CHUNK_BYTES)
            buf += chunk
            start = buf.find(b"<!DOCTYPE")
            first_element = re.search(rb"<[A-Za-z_]", buf)
            if first_element and (start < 0 or first_element.start() < start):
                return buf                                 # no DOCTYPE before the root element
            if start >= 0:
                open_subset = buf.find(b"[", start)
                close_plain = buf.find(b">", start)
                if close_plain >= 0 and (open_subset < 0 or close_plain < open_subset):
                    end = close_plain + 1                  # <!DOCTYPE x SYSTEM "…"> without a subset
                else:
                    m = _DOCTYPE_END.search(buf, open_subset + 1) if open_subset >= 0 else None
                    end = m.end() if m else -1
                if end >= 0:
                    removed = buf[start:end]
                    self.doctype_found = True
                    for m in _ENTITY.finditer(removed):
                        kind = (m.group(3) or b"internal").decode().upper().replace("INTERNAL", "internal")
                        self.entities.append((m.group(2).decode("utf-8", "replace"), kind))
                    # keep the line count: the removed text becomes as many newlines
                    return buf[:start] + b"\n" * removed.count(b"\n") + buf[end:]
            if not chunk or len(buf) > MAX_PROLOG_BYTES:
                raise ValueError("no end of the document type declaration within the first "
                                 f"{MAX_PROLOG_BYTES >> 20} MB")

    def read(self, n: int = CHUNK_BYTES) -> bytes:
        if self._head:
            out, self._head = self._head, b""
            return out
        return self.raw.read(n)


def find_export(person_dir: Path) -> tuple[Path, str | None] | None:
    """The export of one person folder: ``(zip path, member name)`` for an ``export.zip`` (any zip
    holding ``…/export.xml``), or ``(xml path, None)`` for an unzipped ``export.xml``; None if absent."""
    for xml in (person_dir / "apple_health_export" / "export.xml", person_dir / "export.xml"):
        if xml.is_file():
            return xml, None
    for z in sorted(person_dir.glob("*.zip")):
        try:
            with zipfile.ZipFile(z) as zf:
                member = next((n for n in zf.namelist() if n.rsplit("/", 1)[-1] == "export.xml"), None)
        except zipfile.BadZipFile:
            continue
        if member:
            return z, member
    return None


def iter_records(stream: BinaryIO, report: ExportReport) -> Iterator[tuple]:
    """Yield one tuple per ``Record`` element (in :data:`COLUMNS` order) from an export stream."""
    stripper = DoctypeStripper(stream)
    if stripper.doctype_found:
        report.doctype = f"removed ({len(stripper.entities)} entity declarations)"
    report.external_entities = [f"{n} ({k})" for n, k in stripper.entities if k in ("SYSTEM", "PUBLIC")]
    parser = pyexpat.ParserCreate()
    parser.UseForeignDTD(True)     # undefined entities are skipped, not errors; no handler loads anything
    pending: list[tuple] = []
    depth = [0]                    # open Correlation elements

    def start(name, attrs):
        if name == "Record":
            pending.append((parser.CurrentLineNumber, attrs.get("type"), attrs.get("sourceName"),
                            attrs.get("unit"), attrs.get("value"), attrs.get("startDate"),
                            attrs.get("endDate"), depth[0] > 0))
        elif name == "Correlation":
            depth[0] += 1

    def end(name):
        if name == "Correlation":
            depth[0] -= 1

    def skipped(name, is_parameter_entity):
        report.skipped_entity_refs += 1

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.SkippedEntityHandler = skipped
    while True:
        chunk = stripper.read(CHUNK_BYTES)
        parser.Parse(chunk, not chunk)
        yield from pending
        pending.clear()
        if not chunk:
            break


def _write_part(con, rows: list[tuple], path: Path) -> None:
    """One Parquet part from ``rows`` (typed columns, so parts always union); no SQL text holds the path."""
    import pandas as pd

    df = pd.DataFrame.from_records(rows, columns=list(COLUMNS))
    typed = ", ".join(f"cast({c} as {'bigint' if c == 'line' else 'boolean' if c == 'in_correlation' else 'varchar'}) as {c}"
                      for c in COLUMNS)
    con.from_df(df).project(typed).write_parquet(str(path), compression="zstd")


def extract_export(person: str, source: Path, member: str | None, out_dir: Path) -> ExportReport:
    """Stream one export into ``out_dir/records-NNNNN.parquet`` parts; the report says what happened.
    A parse error keeps the parts written so far out of the build (status ``failed``, note = error)."""
    import duckdb

    report = ExportReport(person=person, file=str(source) + (f"!{member}" if member else ""))
    t0 = time.monotonic()
    out_dir.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect()
    try:
        ctx = zipfile.ZipFile(source) if member else None
        with (ctx.open(member) if ctx else open(source, "rb")) as stream:
            batch: list[tuple] = []
            for row in iter_records(stream, report):
                batch.append(row)
                if len(batch) >= BATCH_ROWS:
                    report.parts.append(_flush(con, batch, out_dir, report))
            if batch or not report.parts:
                report.parts.append(_flush(con, batch, out_dir, report))
        if ctx:
            ctx.close()
    except (pyexpat.ExpatError, ValueError, OSError, zipfile.BadZipFile) as exc:
        report.status, report.note, report.parts = "failed", f"not read: {exc}", []
    finally:
        con.close()
    report.seconds = round(time.monotonic() - t0, 3)
    return report


def _flush(con, batch: list[tuple], out_dir: Path, report: ExportReport) -> str:
    path = out_dir / f"records-{len(report.parts):05d}.parquet"
    _write_part(con, batch, path)
    report.records += len(batch)
    report.records_in_correlation += sum(1 for r in batch if r[-1])
    batch.clear()
    return str(path)


def _cache_key(source: Path, member: str | None) -> str:
    st = source.stat()
    raw = json.dumps([LAYOUT_VERSION, str(source.resolve()), member, st.st_size, st.st_mtime_ns])
    return hashlib.sha256(raw.encode()).hexdigest()[:24]


def prepare_exports(data_dir: Path, cache_dir: Path) -> list[ExportReport]:
    """Every ``apple_health/<person>/`` export under ``data_dir``, streamed to Parquet under
    ``cache_dir/<key>/`` (key = path, size and modification time of the export: an unchanged export
    is not parsed again). A person folder without an export is reported with status ``no_export``."""
    root = Path(data_dir) / "apple_health"
    reports: list[ExportReport] = []
    if not root.is_dir():
        return reports
    for person_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        found = find_export(person_dir)
        if found is None:
            reports.append(ExportReport(person=person_dir.name, file=str(person_dir), status="no_export",
                                        note="no export.zip or apple_health_export/export.xml in this folder"))
            continue
        source, member = found
        out_dir = Path(cache_dir) / _cache_key(source, member)
        manifest = out_dir / "report.json"
        if manifest.is_file():
            cached = ExportReport(**json.loads(manifest.read_text()))
            if all(Path(p).is_file() for p in cached.parts):
                cached.person = person_dir.name
                reports.append(cached)
                continue
        shutil.rmtree(out_dir, ignore_errors=True)
        report = _extract_in_subprocess(person_dir.name, source, member, out_dir)
        if report.status == "read":
            manifest.write_text(json.dumps(asdict(report)))
        reports.append(report)
    return reports


def _extract_in_subprocess(person: str, source: Path, member: str | None, out_dir: Path) -> ExportReport:
    """:func:`extract_export` in a child Python process: the parse's memory (Python strings, pandas
    batches) is returned to the system when it exits, so the build process (dbt + DuckDB) that reads
    the parts next does not carry it (bench/RESULTS.md: peak RSS of the 2 GB build)."""
    import subprocess
    import sys

    out_dir.mkdir(parents=True, exist_ok=True)
    result = out_dir / "extract.json"
    cmd = [sys.executable, "-m", "wag_cli.apple_health", person, str(source), member or "", str(out_dir), str(result)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0 or not result.is_file():
        return ExportReport(person=person, file=str(source) + (f"!{member}" if member else ""), status="failed",
                            note=f"not read: the parser process failed ({(proc.stderr or '').strip()[-300:]})")
    return ExportReport(**json.loads(result.read_text()))


if __name__ == "__main__":
    import sys

    _person, _source, _member, _out, _result = sys.argv[1:6]
    _report = extract_export(_person, Path(_source), _member or None, Path(_out))
    Path(_result).write_text(json.dumps(asdict(_report)))


def reports_frame(reports: list[ExportReport]):
    """The reports as the rows of ``stg_apple_health__files`` (a pandas DataFrame, one row per part
    file so the staging model can list the parts; a file without parts has one row, part NULL)."""
    import pandas as pd

    rows = []
    for r in reports:
        base = {"dataset": "apple_health", "subject_id": f"apple_health:{r.person}", "person": r.person,
                "file": r.file, "status": r.status, "records": r.records,
                "records_in_correlation": r.records_in_correlation, "doctype": r.doctype,
                "external_entities": "; ".join(r.external_entities) or None,
                "skipped_entity_refs": r.skipped_entity_refs, "seconds": r.seconds, "note": r.note or None}
        for part in r.parts or [None]:
            rows.append({**base, "part": part})
    columns = ["dataset", "subject_id", "person", "file", "status", "records", "records_in_correlation",
               "doctype", "external_entities", "skipped_entity_refs", "seconds", "note", "part"]
    return pd.DataFrame(rows, columns=columns)
