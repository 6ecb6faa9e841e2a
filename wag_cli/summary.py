"""Summaries of the warehouse for `wag build`/`wag demo`/`wag subjects` (queries in sql/)."""

from __future__ import annotations

from importlib import resources

from .db import fetch_dicts, warehouse


def _sql(name: str) -> str:
    return resources.files("wag_cli").joinpath("sql", name).read_text(encoding="utf-8")


SUBJECTS_SQL = _sql("subjects.sql")


def warehouse_summary() -> list[dict]:
    """Rows of (dataset, n_subjects, n_metrics, n_days, n_rows, first_day, last_day)."""
    with warehouse() as con:
        return fetch_dicts(con, _sql("warehouse_summary.sql"))


def withheld_summary() -> list[dict]:
    """Values kept out of metric_values (table metric_values_rejected, DESIGN.md §2) per dataset and
    reason kind: rows of (dataset, reason_kind, n_values); empty when none were."""
    with warehouse() as con:
        return fetch_dicts(con, _sql("withheld_summary.sql"))


def rejected_summary() -> list[dict]:
    """Quarantined raw records (table raw_rejected, issue 9 item 1) per file and reason:
    rows of (file, reason, n_records, first_locator); empty when nothing was rejected."""
    with warehouse() as con:
        return fetch_dicts(con, _sql("rejected_summary.sql"))


def apple_health_summary() -> list[dict]:
    """Apple Health exports of the build (issue 28): rows of (subject_id, file, status, records,
    doctype, external_entities, skipped_entity_refs, note, unmapped_types); empty without exports."""
    with warehouse() as con:
        if not con.execute("select count(*) from information_schema.tables "
                           "where table_name = 'stg_apple_health__files'").fetchone()[0]:
            return []
        return fetch_dicts(con, _sql("apple_health_summary.sql"))
