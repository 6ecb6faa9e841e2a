"""`wag build`: run `dbt build` (seeds, models, data tests, unit tests) through dbt's Python runner.

dbt runs in-process (``dbtRunner``) from the project directory with the warehouse path and the raw
data folder passed as absolute paths, so the command works from any working directory. Progress is
reported per finished node through dbt's event callbacks.

Atomic builds (issue 9 item 2): dbt builds into a fresh DuckDB file with the warehouse's own file
name inside a hidden folder beside it (``.<name>.build/<name>``; the same name keeps the catalog
name that views and macros refer to). Only when every model, data test and unit test passed is that
file moved over the warehouse with :func:`os.replace` (atomic on one file system); otherwise it is
deleted. A failed, interrupted or killed build therefore leaves the previous warehouse file untouched
(a killed one may leave its hidden folder, removed by the next build). The folder's name does not
change between builds, so dbt sees the same profile (the DuckDB path) and re-parses only changed
project files (a full parse of the project is ~5 s); ``owner.pid`` in it names the build that holds
it, and a second build of the same warehouse while that process runs is refused. The reply cache and
the eval store (``<stem>_llm_cache.duckdb``, ``<stem>_eval.duckdb``) are separate files and are not
touched. A build refuses to start while another process holds the warehouse, naming its PID.

Incremental builds (issue 10 item 4): when the warehouse holds the state of a complete earlier build
made with the same settings (table ``wag_build_settings``: a hash of the dbt vars and of every project
file, models, macros, seeds and dbt_project.yml), the staging file starts as a copy of the warehouse,
so dbt's incremental models recompute only the subjects whose rows changed
(``int_changed_subjects``, macros/incremental.sql) and keep the others, and the seeds and unit tests
are not run again (:data:`INCREMENTAL_EXCLUDE`); otherwise, or with
``full_refresh``, the staging file starts empty and everything is built. Either way the swap is the
same atomic ``os.replace``. When, besides the settings, no data file changed either (the stored
:func:`data_fingerprint`), the build stops before dbt and the warehouse is left as it is
(``refresh["mode"] == "unchanged"``): an unchanged 500-subject warehouse otherwise spent ~19 s
re-running ~300 nodes to recompute nothing (bench/RESULTS.md, twelfth session).

Shapes: :class:`~wag_cli.dbt_run.BuildResult` (from :mod:`wag_cli.dbt_run`, which runs dbt in this
process). The Spark engine (``engine="spark"``) is :mod:`wag_cli.build_spark`.

Errors: :class:`~wag_cli.errors.UsageError` (no dataset folder, unknown engine, ``--wide`` with
Spark), :class:`~wag_cli.errors.DatabaseError` (the warehouse or its staging folder is held by another
process), :class:`~wag_cli.errors.WagError` (dbt cannot start).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Callable

# BuildResult and invoke_dbt_in_process (dbt_run) and export_spark_warehouse (build_spark) are also
# imported from this module by their callers (wag eval alpha, the tests)
from .build_spark import export_spark_warehouse, invoke_dbt_spark, spark_warehouse_dir
from .dbt_run import BuildResult, invoke_dbt_in_process, one_line
from .errors import UsageError, WagError
from .failure_rows import describe_failing_rows
from .safe_names import check_data_names
from .paths import db_path, project_dir

DATASET_FOLDERS = ("pmdata", "lifesnaps", "globem", "ifh_affect", "apple_health", "fitbit", "oura")

SETTINGS_TABLE = "wag_build_settings"
# Skipped by an incremental build: the seeds (their files are in the settings hash, so the copied
# warehouse holds them as loaded) with their data tests, and the unit tests (fixture data only: same
# project files and engine versions, same result as in the stored build, which passed them all).
INCREMENTAL_EXCLUDE = ("resource_type:seed", "test_type:unit")
PROJECT_FILE_GLOBS = ("dbt_project.yml", "profiles.yml", "models/**/*", "macros/**/*", "seeds/**/*")


def settings_hash(project: Path, dbt_vars: dict) -> str:
    """SHA-256 (hex) of the dbt vars (JSON, sorted keys), of the dbt-core, dbt-duckdb and DuckDB
    versions and of every project file that shapes the tables (:data:`PROJECT_FILE_GLOBS`, by relative
    path and content): equal hashes mean an incremental build computes what a full one would, and that
    the seeds and unit tests it skips (:data:`INCREMENTAL_EXCLUDE`) are those the stored build loaded
    and passed."""
    import hashlib
    from importlib.metadata import version

    engine = {pkg: version(pkg) for pkg in ("dbt-core", "dbt-duckdb", "duckdb")}
    h = hashlib.sha256(json.dumps({"vars": dbt_vars, "engine": engine}, sort_keys=True).encode())
    files = sorted({p for g in PROJECT_FILE_GLOBS for p in project.glob(g) if p.is_file()})
    for f in files:
        h.update(str(f.relative_to(project)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def data_fingerprint(data_dir: Path, wide_sources: list[dict] | None = None) -> str:
    """SHA-256 (hex) of what a build reads from disk: the relative path, size and modification time
    (ns) of every file under ``data_dir`` (hidden files and folders and DuckDB files excepted) and the
    absolute path, size and modification time of each wide source. Equal fingerprints (with equal
    :func:`settings_hash`) mean a build would recompute nothing: ``wag build`` then stops before dbt.
    The check is make's and rsync's: a file rewritten with the same size inside the same nanosecond
    would go unnoticed (``--full-refresh`` rebuilds regardless)."""
    import hashlib

    h = hashlib.sha256()
    root = Path(data_dir).resolve()
    entries = []
    if root.is_dir():
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in filenames:
                if name.startswith(".") or name.endswith((".duckdb", ".duckdb.wal")):
                    continue
                path = Path(dirpath) / name
                st = path.stat()
                entries.append((str(path.relative_to(root)), st.st_size, st.st_mtime_ns))
    for src in wide_sources or []:
        path = Path(src["path"]).resolve()
        st = path.stat()
        entries.append((f"wide:{src['dataset']}:{path}", st.st_size, st.st_mtime_ns))
    for entry in sorted(entries):
        h.update(json.dumps(entry).encode() + b"\0")
    return h.hexdigest()


def _stored_settings(database: Path) -> str | None:
    """The settings hash stored in ``database`` by its last complete ``wag build``, or None (no file,
    no table, no fingerprints of a complete run, unreadable)."""
    return _stored_state(database)[0]


def _stored_state(database: Path) -> tuple[str | None, str | None]:
    """``(settings_hash, data_fingerprint)`` stored by the last complete ``wag build`` of ``database``;
    ``(None, None)`` when there is none (no file, no table, no fingerprints of a complete run,
    unreadable), the fingerprint None when the build that stored it predates it."""
    row = _settings_row(database, complete=True)
    return row.get("settings_hash"), row.get("data_fingerprint")


def _settings_row(database: Path, *, complete: bool) -> dict:
    """The row of :data:`SETTINGS_TABLE` in ``database`` as a dict (columns of older builds absent), or
    ``{}`` (no file, no table, unreadable; with ``complete`` also when the fingerprints of a complete
    run are missing, as after a hand-run ``dbt build``)."""
    import duckdb

    if not database.is_file():
        return {}
    try:
        con = duckdb.connect(str(database), read_only=True)
    except duckdb.Error:
        return {}
    try:
        tables = {r[0] for r in con.execute("select table_name from duckdb_tables()").fetchall()}
        if SETTINGS_TABLE not in tables or (complete and "wag_build_fingerprints" not in tables):
            return {}
        cur = con.execute(f"select * from {SETTINGS_TABLE}")
        row = cur.fetchone()
        return dict(zip([d[0] for d in cur.description], row)) if row else {}
    except duckdb.Error:
        return {}
    finally:
        con.close()


def refresh_report(database: Path, incremental: bool, why_full: str | None = None) -> dict:
    """What a finished DuckDB build recomputed: ``mode`` ('incremental' or 'full'), ``subjects``
    (subjects in metric_values), ``changed_subjects`` (recomputed by the subject-level models) and,
    for an incremental build, ``changed_datasets`` (population snapshots refreshed); for a full build
    ``reason`` (``why_full``: 'first' = no complete earlier build, 'settings' = its settings hash
    differs, 'full_refresh' = asked for). Read from int_changed_subjects; in a full build every
    subject is recomputed."""
    import duckdb

    con = duckdb.connect(str(database))
    try:
        n_subjects = con.execute("select count(*) from int_subject_keys").fetchone()[0]
        changed, datasets = con.execute(
            "select count(*), coalesce(list(distinct dataset order by dataset), []) from int_changed_subjects").fetchone()
    finally:
        con.close()
    if not incremental:
        return {"mode": "full", "subjects": n_subjects, "changed_subjects": n_subjects, "reason": why_full or "first"}
    return {"mode": "incremental", "subjects": n_subjects, "changed_subjects": changed, "changed_datasets": datasets}


def _subject_count(database: Path) -> dict:
    """``{"subjects": n}``: the subjects of ``database``'s int_subject_keys (read-only)."""
    import duckdb

    con = duckdb.connect(str(database), read_only=True)
    try:
        return {"subjects": con.execute("select count(*) from int_subject_keys").fetchone()[0]}
    finally:
        con.close()


def data_source_text(data_dir: Path, wide_sources: list[dict] | None = None) -> str:
    """What a build reads, in words: the data folder and each wide source ("DIR + wide sim=PATH")."""
    parts = [str(Path(data_dir).resolve())]
    parts += [f"wide {s['dataset']}={Path(s['path']).resolve()}" for s in wide_sources or []]
    return " + ".join(parts)


def stored_data_source(database: Path) -> str | None:
    """The data source text stored by the last ``wag build`` of ``database``, or None."""
    return _settings_row(database, complete=False).get("data_source")


def _store_settings(database: Path, digest: str, fingerprint: str | None = None, source: str | None = None) -> None:
    import duckdb

    con = duckdb.connect(str(database))
    try:
        con.execute(f"create or replace table {SETTINGS_TABLE} as "
                    "select ? as settings_hash, ? as data_fingerprint, ? as data_source", [digest, fingerprint, source])
    finally:
        con.close()


def _dbt_vars(data_dir: Path, wide_sources: list[dict] | None) -> dict:
    """The dbt vars of a build; each wide source gets its CSV dialect (declared or sniffed,
    :func:`wag_cli.dialect.resolve_wide_dialect`; UsageError for an unreadable file)."""
    from .dialect import resolve_wide_dialect

    out: dict = {"data_dir": str(Path(data_dir).resolve())}
    if wide_sources:
        out["wide_sources"] = [
            {"dataset": s["dataset"], "path": str(Path(s["path"]).resolve()),
             **resolve_wide_dialect(Path(s["path"]).resolve(), s)}
            for s in wide_sources
        ]
    return out


def spark_unread_inputs(data_dir: Path) -> list[str]:
    """What a Spark build does not read (issue 28: the readers are dbt Python models, DuckDB-only; on
    Spark those models are disabled, dbt_project.yml): the Apple Health folder and Fitbit Takeout zips
    under ``data_dir``, as text for a note; [] when there are none."""
    root = Path(data_dir)
    out = []
    apple = root / "apple_health"
    if apple.is_dir() and any(p.is_file() for p in apple.rglob("*")):
        out.append("apple_health/ (Apple Health exports)")
    fitbit = root / "fitbit"
    if fitbit.is_dir() and any(p.is_file() for p in fitbit.glob("*/**/*.zip")):
        out.append("the Fitbit Takeout zips under fitbit/ (unzip them to have them read)")
    return out


def run_build(
    data_dir: Path,
    *,
    wide_sources: list[dict] | None = None,
    on_node: Callable[[str, str], None] | None = None,
    database: Path | None = None,
    engine: str = "duckdb",
    full_refresh: bool = False,
    settings: dict | None = None,
) -> BuildResult:
    """Run ``dbt build`` on ``data_dir`` into ``database`` (default: :func:`paths.db_path`), atomically.

    The build runs into a staging file that replaces ``database`` only when ``dbt build`` (models,
    data tests, unit tests) succeeded; see the module docstring. It is incremental (a copy of the
    warehouse, only changed subjects recomputed) when the warehouse holds a complete build with the
    same settings and ``full_refresh`` is false, and skipped (the warehouse untouched, no dbt run) when
    no data file changed either; ``BuildResult.refresh`` says which (mode full, incremental or unchanged). ``on_node(name, status)`` is called
    as each node finishes. ``settings``: dbt vars that override dbt_project.yml's for this build (e.g.
    ``{"population_as_of": "snapshot"}``); they are part of the settings hash, so a change rebuilds. Returns a :class:`BuildResult`. Raises :class:`UsageError` when
    ``data_dir`` holds no dataset folder, :class:`~wag_cli.errors.DatabaseError` when another process
    holds ``database``, :class:`WagError` when dbt itself cannot start (bad project, bad profile).
    """
    project = project_dir()
    database = Path(database).resolve() if database else db_path()
    check_data_dir(Path(data_dir), wide_sources)
    check_data_names(Path(data_dir), DATASET_FOLDERS)
    dbt_vars = {**(settings or {}), **_dbt_vars(data_dir, wide_sources)}
    # issue 28: a Fitbit Takeout zip's members are copied beside the warehouse file, not into the build's
    # folder (removed after each build), so an unchanged zip is not copied again (wag_cli/fitbit_takeout.py)
    dbt_vars["fitbit_takeout_cache_dir"] = str(database.with_name(database.name + ".takeout"))
    check_not_locked(database)
    staging_dir = _claim_staging(database)
    try:
        if engine == "spark":
            # issue 12: dbt build --target spark, then the DuckDB warehouse file read from Spark's Parquet
            # tables, so every reader command (ask, sql, subjects…) answers from the Spark build
            if wide_sources:
                raise UsageError("--wide is not supported with --engine spark (the wide CSV reader is DuckDB's sniffer)")
            out = invoke_dbt_spark(project, spark_warehouse_dir(), data_dir, dbt_vars, on_node)
            if out.success:
                export_spark_warehouse(spark_warehouse_dir(), staging_dir / database.name, project)
        elif engine == "duckdb":
            built = staging_dir / database.name
            digest = settings_hash(project, dbt_vars)
            fingerprint = data_fingerprint(Path(data_dir), wide_sources)
            stored_digest, stored_fingerprint = _stored_state(database)
            incremental = not full_refresh and stored_digest == digest
            if incremental and stored_fingerprint == fingerprint:
                # same settings, same files as the last complete build: nothing to recompute or test
                return BuildResult(success=True, refresh={"mode": "unchanged", **_subject_count(database)})
            if incremental:
                shutil.copyfile(database, built)   # the tables the incremental models keep
            out = _invoke_dbt(project, built, data_dir, dbt_vars, on_node,
                              exclude=INCREMENTAL_EXCLUDE if incremental else ())
            if out.success:
                _store_settings(built, digest, fingerprint, data_source_text(Path(data_dir), wide_sources))
                why_full = ("full_refresh" if full_refresh else "first" if stored_digest is None else "settings")
                out.refresh = refresh_report(built, incremental, None if incremental else why_full)
        else:
            raise UsageError(f"unknown engine {engine!r}; choose duckdb or spark")
        if out.success:
            _swap_in(staging_dir / database.name, database)
        return out
    finally:
        shutil.rmtree(staging_dir, ignore_errors=True)   # a failed build's file; the warehouse is untouched


def _invoke_dbt(project: Path, database: Path, data_dir: Path, dbt_vars: dict,
                on_node: Callable[[str, str], None] | None, exclude: tuple[str, ...] = ()) -> BuildResult:
    """``dbt build`` into ``database`` (WAG_DB points there for the run), without the nodes selected
    by ``exclude`` (dbt selectors); the result, not raised."""

    def callback(event) -> None:
        if on_node is None or event.info.name != "NodeFinished":
            return
        node = event.data.node_info
        on_node(node.node_name, node.node_status)

    args = [
        "build",
        "--project-dir", str(project),
        "--profiles-dir", str(project),
        "--vars", json.dumps(dbt_vars),
        "--quiet",
        "--no-use-colors",
        *(["--exclude", *exclude] if exclude else []),
    ]
    env = {"WAG_DB": str(database), "WAG_DATA_DIR": str(Path(data_dir).resolve()),
           "DO_NOT_TRACK": os.environ.get("DO_NOT_TRACK", "1")}
    res = invoke_dbt_in_process(args, env, project, [callback])

    if res.exception is not None and res.result is None:
        raise WagError(f"dbt could not run: {one_line(str(res.exception))}")
    out = BuildResult(success=bool(res.success))
    for r in getattr(res.result, "results", None) or []:
        status = str(r.status)
        out.n_nodes += 1
        out.status_counts[status] = out.status_counts.get(status, 0) + 1
        if status in ("error", "fail"):
            where = ""
            if status == "fail" and getattr(r.node, "resource_type", None) == "test":
                where = describe_failing_rows(database, getattr(r.node, "compiled_code", None))
            out.failures.append((r.node.name, one_line(r.message or "") + where))
    return out


def check_data_dir(data_dir: Path, wide_sources: list[dict] | None = None) -> None:
    """Raise :class:`UsageError` when ``data_dir`` holds none of :data:`DATASET_FOLDERS` and no wide
    source is given: the message lists what was looked for and what the folder holds (a folder one
    level too deep or too high would otherwise give an empty, "passed" build). DESIGN.md §2."""
    if wide_sources:
        return
    if not data_dir.is_dir():
        raise UsageError(f"data folder {data_dir} does not exist; set WAG_DATA_DIR or pass --data-dir "
                         "(or run `wag demo` for synthetic data)")
    if any((data_dir / name).is_dir() for name in DATASET_FOLDERS):
        return
    found = sorted(p.name + ("/" if p.is_dir() else "") for p in data_dir.iterdir() if not p.name.startswith("."))
    shown = ", ".join(found[:10]) + (f", … ({len(found)} entries)" if len(found) > 10 else "") if found else "nothing"
    inside = [f"{p.name}/{n}" for p in data_dir.iterdir() if p.is_dir() for n in DATASET_FOLDERS if (p / n).is_dir()]
    hint = f"; did you mean {data_dir / inside[0].split('/')[0]}?" if inside else ""
    if data_dir.name in DATASET_FOLDERS:
        hint = f"; did you mean its parent {data_dir.parent}?"
    raise UsageError(f"data folder {data_dir} holds none of the dataset folders {', '.join(f + '/' for f in DATASET_FOLDERS)} "
                     f"(it holds: {shown}){hint}")


def check_not_locked(database: Path) -> None:
    """Raise :class:`DatabaseError` (one line, naming the PID) when another process holds ``database``."""
    import duckdb

    from .db import is_lock_error, lock_holder
    from .errors import DatabaseError

    if not database.exists():
        return
    try:
        # read-write open: fails while any other process has the file open, reader or writer
        con = duckdb.connect(str(database))
    except duckdb.IOException as exc:
        if is_lock_error(exc):
            raise DatabaseError(f"cannot build: {database} is held by {lock_holder(str(exc))}; close that "
                                "process (a `wag sql`/`wag ask`, a notebook, a running build) and retry") from None
        raise DatabaseError(f"cannot build: {database} cannot be opened ({str(exc).splitlines()[0]})") from None
    con.close()


def staging_dir_for(database: Path) -> Path:
    """The hidden folder a build of ``database`` writes into: ``.<name>.build`` beside it."""
    return database.parent / f".{database.name}.build"


def _claim_staging(database: Path) -> Path:
    """Create the staging folder of ``database`` with ``owner.pid`` naming this process, after removing
    a folder left by a build whose process no longer runs (killed). Raises :class:`DatabaseError`
    naming the PID when a running build holds it."""
    from .errors import DatabaseError

    folder = staging_dir_for(database)
    owner = folder / "owner.pid"
    if folder.exists():
        text = owner.read_text().strip() if owner.is_file() else ""
        if text.isdigit() and int(text) != os.getpid() and _pid_alive(int(text)):
            raise DatabaseError(f"cannot build: another wag build (PID {text}) is building {database} in "
                                f"{folder}; wait for it to finish or stop it, then retry")
        shutil.rmtree(folder, ignore_errors=True)
    folder.parent.mkdir(parents=True, exist_ok=True)
    try:
        folder.mkdir()
    except FileExistsError:   # another build claimed it between the check and now
        raise DatabaseError(f"cannot build: another wag build started building {database} just now; "
                            "retry when it has finished") from None
    owner.write_text(str(os.getpid()))
    return folder


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _swap_in(built: Path, database: Path) -> None:
    """Move the finished build over the warehouse. A write-ahead log left beside the old file by a
    crashed writer belongs to the old file and is removed first (DuckDB would replay it onto the new)."""
    wal = database.with_name(database.name + ".wal")
    if wal.exists():
        wal.unlink()
    os.replace(built, database)
