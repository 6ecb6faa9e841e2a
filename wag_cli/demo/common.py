"""Helpers shared by the demo writers: the Oslo clock, the native time formats, rounding, file writing.

Time: Fitbit times are local wall time under the Europe/Oslo rule (CEST from the last Sunday of March
02:00 to the last Sunday of October 03:00 local), computed by hand so no tz database is needed;
:func:`_to_utc` turns them into UTC for the PMSys files. Formats: ``_fitbit_space``
(``YYYY-MM-DD HH:MM:SS``), ``_fitbit_t`` (``YYYY-MM-DDTHH:MM:SS.000``), ``_mdy`` (``MM/DD/YY``),
``_iso_utc_ms`` (``…Z`` with milliseconds).

Files: :func:`_write_text` writes UTF-8 bytes exactly (no newline translation) and records the path;
:func:`_csv_text` and :func:`_json_array` give the CSV and JSON text of the native files.

The underscore names are this package's internals, not an API of ``wag_cli``. Nothing here raises
beyond what the file system does.
"""

from __future__ import annotations

import csv
import io
import json
from datetime import date, datetime, timedelta
from pathlib import Path

import numpy as np


# --------------------------------------------------------------------------------------------------
# time helpers (Europe/Oslo DST rule: CEST from last Sunday of March 02:00 to last Sunday of
# October 03:00 local; computed by hand so no tz database is needed)

def _last_sunday(year: int, month: int) -> date:
    d = date(year, month + 1, 1) - timedelta(days=1) if month < 12 else date(year, 12, 31)
    return d - timedelta(days=(d.weekday() + 1) % 7)


def _utc_offset_hours(local: datetime) -> int:
    start = datetime.combine(_last_sunday(local.year, 3), datetime.min.time()) + timedelta(hours=2)
    end = datetime.combine(_last_sunday(local.year, 10), datetime.min.time()) + timedelta(hours=3)
    return 2 if start <= local < end else 1


def _to_utc(local: datetime) -> datetime:
    return local - timedelta(hours=_utc_offset_hours(local))


def _iso_utc_ms(t: datetime, ms: int) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S") + f".{ms:03d}Z"


def _fitbit_space(t: datetime) -> str:
    return t.strftime("%Y-%m-%d %H:%M:%S")


def _fitbit_t(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S") + ".000"


def _mdy(t: datetime) -> str:
    return t.strftime("%m/%d/%y %H:%M:%S")


def _r(x: float, nd: int) -> float:
    return round(float(x), nd)


def _clip(x: float, lo: float, hi: float) -> float:
    return lo if x < lo else hi if x > hi else x


def _iround(x: float) -> int:
    return int(np.rint(x))


# --------------------------------------------------------------------------------------------------
# writers

def _write_text(path: Path, text: str, files: list[Path]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    files.append(path)


def _csv_text(header: list[str], rows: list[list], lineterminator: str = "\n") -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator=lineterminator, quoting=csv.QUOTE_MINIMAL)
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue()


def _json_array(items: list) -> str:
    # Python's default separators (", ", ": ") = the PMData files; no trailing newline.
    return json.dumps(items, ensure_ascii=False)
