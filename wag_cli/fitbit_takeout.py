"""Fitbit account exports left zipped: the Google Takeout zip -> the JSON files the build reads (issue 28).

DuckDB cannot glob inside a zip, so the JSON members the Fitbit staging models read are copied out of
each ``<data_dir>/fitbit/<person>/**/*.zip`` into a cache folder (dbt var ``fitbit_takeout_cache_dir``,
by default beside the warehouse file) with the layout the models glob:

    <cache>/fitbit/<person>/<zip name>/Takeout/Fitbit/Global Export Data/steps-2024-03-01.json

so the person and the member's own path stay readable in every row that names the file
(``raw_rejected.file`` = ``fitbit/<person>/<zip name>/<member>``).

Rules
* Only members in a ``Global Export Data`` folder whose name is one of :data:`READ_FILES` followed by
  ``-<anything>.json`` are copied: the files the models read. The per-minute heart-rate and calories
  files, by far the largest, are not.
* A member whose name is absolute, has a drive letter, a backslash, a control character or a ``..`` part is skipped and
  counted, never written (no path can leave the zip's cache folder). Members are streamed in 1 MiB
  blocks (``zipfile.ZipFile.open``); the zip itself is only opened for reading.
* Each zip's folder carries ``.source.json`` (the zip's size and modification time); an unchanged zip
  is not copied again. Folders of zips that are no longer in the data folder are removed, so a removed
  export no longer feeds the build.
* A zip that cannot be read (not a zip, truncated, CRC error) is reported with status ``failed`` and
  its note; the build goes on without it.
"""

from __future__ import annotations

import json
import shutil
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

READ_FILES = ("steps", "distance", "time_in_heart_rate_zones", "sleep", "resting_heart_rate",
              "sedentary_minutes", "lightly_active_minutes", "moderately_active_minutes",
              "very_active_minutes", "exercise")
EXPORT_FOLDER = "Global Export Data"
BLOCK = 1 << 20


@dataclass
class ZipReport:
    person: str
    file: str                       # the zip, relative to the data folder
    status: str = "read"            # read, cached (unchanged since the last copy), failed
    members_copied: int = 0
    bytes_copied: int = 0
    members_skipped_unsafe: int = 0
    members_not_read: int = 0       # other Takeout members (other products, files no model reads)
    note: str = ""
    unsafe_names: list[str] = field(default_factory=list)


def is_safe_member(name: str) -> bool:
    """True for a relative member name that cannot leave the folder it is extracted into."""
    if not name or "\\" in name or name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return False
    if any(ord(c) < 32 or ord(c) == 127 for c in name):      # a newline in a path would split a row
        return False
    return all(part not in ("..", "") for part in name.rstrip("/").split("/"))


def is_read_member(name: str) -> bool:
    """True for ``…/Global Export Data/<read file>-….json``."""
    path = PurePosixPath(name)
    if path.parent.name != EXPORT_FOLDER or path.suffix != ".json":
        return False
    return any(path.name.startswith(f + "-") for f in READ_FILES)


def _signature(zip_path: Path) -> dict:
    st = zip_path.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def extract_takeout_zips(data_dir: Path, cache_dir: Path) -> list[ZipReport]:
    """Copy the read members of every Takeout zip under ``data_dir/fitbit/<person>/`` into
    ``cache_dir/fitbit/<person>/<zip name>/`` (see the module docstring); return one report per zip."""
    data_dir, cache_dir = Path(data_dir), Path(cache_dir)
    root = data_dir / "fitbit"
    zips = sorted(p for p in root.glob("*/**/*.zip") if p.is_file()) if root.is_dir() else []
    wanted = {Path(z.relative_to(root).parts[0]) / z.name: z for z in zips}
    out_root = cache_dir / "fitbit"
    # forget the copies of zips that are gone (a removed export must not feed the build)
    if out_root.is_dir():
        for person_dir in out_root.iterdir():
            for zip_dir in (person_dir.iterdir() if person_dir.is_dir() else []):
                if zip_dir.relative_to(out_root) not in wanted:
                    shutil.rmtree(zip_dir, ignore_errors=True)
            if person_dir.is_dir() and not any(person_dir.iterdir()):
                person_dir.rmdir()
    reports = []
    for rel, zip_path in wanted.items():
        person = rel.parts[0]
        report = ZipReport(person=person, file=str(zip_path.relative_to(data_dir)))
        target = out_root / rel
        marker = target / ".source.json"
        signature = _signature(zip_path)
        if marker.is_file():
            try:
                stored = json.loads(marker.read_text())
            except ValueError:
                stored = {}
            if stored.get("signature") == signature:
                report.status = "cached"
                for k in ("members_copied", "bytes_copied", "members_skipped_unsafe", "members_not_read"):
                    setattr(report, k, stored.get(k, 0))
                reports.append(report)
                continue
        shutil.rmtree(target, ignore_errors=True)
        try:
            _copy_members(zip_path, target, report)
        except (zipfile.BadZipFile, OSError, EOFError, RuntimeError, ValueError) as exc:
            shutil.rmtree(target, ignore_errors=True)
            report.status, report.note = "failed", f"{type(exc).__name__}: {exc}"
            report.members_copied = report.bytes_copied = 0
            reports.append(report)
            continue
        target.mkdir(parents=True, exist_ok=True)
        marker.write_text(json.dumps({"signature": signature, "members_copied": report.members_copied,
                                      "bytes_copied": report.bytes_copied,
                                      "members_skipped_unsafe": report.members_skipped_unsafe,
                                      "members_not_read": report.members_not_read}))
        reports.append(report)
    return reports


def _copy_members(zip_path: Path, target: Path, report: ZipReport) -> None:
    with zipfile.ZipFile(zip_path) as zf:
        for info in zf.infolist():
            if info.is_dir():
                continue
            if not is_safe_member(info.filename):
                report.members_skipped_unsafe += 1
                report.unsafe_names.append(info.filename)
                continue
            if not is_read_member(info.filename):
                report.members_not_read += 1
                continue
            dest = target.joinpath(*info.filename.split("/"))
            dest.parent.mkdir(parents=True, exist_ok=True)
            with zf.open(info) as src, open(dest, "wb") as out:
                while block := src.read(BLOCK):
                    out.write(block)
                    report.bytes_copied += len(block)
            report.members_copied += 1
    if report.unsafe_names:
        report.note = "unsafe member names skipped: " + "; ".join(report.unsafe_names[:5])


def reports_frame(reports: list[ZipReport]):
    """The reports as the rows of ``stg_fitbit__takeout_files`` (a pandas DataFrame)."""
    import pandas as pd

    columns = ["dataset", "subject_id", "person", "file", "status", "members_copied", "bytes_copied",
               "members_skipped_unsafe", "members_not_read", "note"]
    rows = [{"dataset": "fitbit", "subject_id": f"fitbit:{r.person}", "person": r.person, "file": r.file,
             "status": r.status, "members_copied": r.members_copied, "bytes_copied": r.bytes_copied,
             "members_skipped_unsafe": r.members_skipped_unsafe, "members_not_read": r.members_not_read,
             "note": r.note or None} for r in reports]
    # counts typed even when there is no zip (an empty frame's columns are otherwise untyped)
    return pd.DataFrame(rows, columns=columns).astype(
        {"members_copied": "int64", "bytes_copied": "int64", "members_skipped_unsafe": "int64", "members_not_read": "int64"})
