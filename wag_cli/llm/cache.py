"""The reply cache: validated model replies and the accepted request shape per server, in DuckDB.

One small DuckDB file (:func:`default_cache_path`: ``WAG_LLM_CACHE``, ``off`` disables it; default
``<warehouse stem>_llm_cache.duckdb`` beside :func:`wag_cli.paths.db_path`) with two tables:
``llm_cache`` (replies keyed by the sha256 of the canonical request, :func:`canonical_json`) and
``llm_shapes`` (the index into :data:`wag_cli.llm.shapes.SHAPES` each base URL and model accepts).

Errors: none escape for a cache that cannot be used (locked by another process, unwritable folder,
corrupt file): caching is then skipped, never a reason to fail. Other exceptions propagate.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .shapes import SHAPES


def default_cache_path() -> Path | None:
    """``WAG_LLM_CACHE`` (None if ``off``/``none``/``0``), else ``<warehouse stem>_llm_cache.duckdb``."""
    env = os.environ.get("WAG_LLM_CACHE", "").strip()
    if env:
        return None if env.lower() in {"off", "none", "0", "false"} else Path(env).expanduser().resolve()
    from ..paths import db_path

    db = db_path()
    return db.with_name(f"{db.stem}_llm_cache.duckdb")


#: What :meth:`ReplyCache.get` returns for a key that is not cached (a cached reply may be None).
MISS = object()


class ReplyCache:
    """Validated replies keyed by sha256 of the canonical request, in a small DuckDB file.

    Table ``llm_cache(key VARCHAR PRIMARY KEY, model VARCHAR, kind VARCHAR, request JSON, reply JSON,
    created_at TIMESTAMP)`` (UTC). The connection is opened and closed per call; if the file is locked
    by another process or cannot be written, caching is silently skipped. ``path=None`` disables it.
    """

    def __init__(self, path: Path | None):
        self.path = Path(path) if path is not None else None

    def _connect(self):
        import duckdb

        self.path.parent.mkdir(parents=True, exist_ok=True)
        con = duckdb.connect(str(self.path))
        con.execute(
            "CREATE TABLE IF NOT EXISTS llm_cache (key VARCHAR PRIMARY KEY, model VARCHAR, kind VARCHAR,"
            " request JSON, reply JSON, created_at TIMESTAMP)"
        )
        con.execute("CREATE TABLE IF NOT EXISTS llm_shapes (base_url VARCHAR, model VARCHAR, shape INTEGER,"
                    " decided_at TIMESTAMP, PRIMARY KEY (base_url, model))")
        return con

    def get_many(self, keys: list[str]) -> dict[str, Any]:
        """``{key: reply}`` for the keys present (empty when disabled or unavailable)."""
        if self.path is None or not keys:
            return {}
        try:
            con = self._connect()
        except Exception as exc:
            if _is_cache_problem(exc):
                return {}
            raise
        try:
            rows = con.execute(
                "SELECT key, CAST(reply AS VARCHAR) FROM llm_cache WHERE list_contains(?, key)", [keys]
            ).fetchall()
        except Exception as exc:
            if _is_cache_problem(exc):
                return {}
            raise
        finally:
            con.close()
        out = {}
        for key, reply in rows:
            try:
                out[key] = json.loads(reply)
            except (TypeError, ValueError):
                continue
        return out

    def get(self, key: str):
        """The cached reply for ``key`` or the module sentinel ``MISS``."""
        return self.get_many([key]).get(key, MISS)

    def put_many(self, rows: list[tuple[str, str, str, Any, Any]]) -> None:
        """Store ``(key, model, kind, request, reply)`` rows (replacing same keys); errors are ignored."""
        if self.path is None or not rows:
            return
        now = datetime.now(timezone.utc).replace(tzinfo=None)
        try:
            con = self._connect()
        except Exception as exc:
            if _is_cache_problem(exc):
                return
            raise
        try:
            con.executemany(
                "INSERT OR REPLACE INTO llm_cache VALUES (?, ?, ?, ?, ?, ?)",
                [(k, m, kind, canonical_json(req), canonical_json(rep), now) for k, m, kind, req, rep in rows],
            )
        except Exception as exc:
            if not _is_cache_problem(exc):
                raise
        finally:
            con.close()

    def put(self, key: str, model: str, kind: str, request: Any, reply: Any) -> None:
        self.put_many([(key, model, kind, request, reply)])

    def get_shape(self, base_url: str, model: str) -> int | None:
        """The index into :data:`SHAPES` recorded for this server and model, or None."""
        if self.path is None or not self.path.exists():
            return None
        try:
            con = self._connect()
        except Exception as exc:
            if _is_cache_problem(exc):
                return None
            raise
        try:
            row = con.execute("SELECT shape FROM llm_shapes WHERE base_url = ? AND model = ?",
                              [base_url, model]).fetchone()
        except Exception as exc:
            if _is_cache_problem(exc):
                return None
            raise
        finally:
            con.close()
        return int(row[0]) if row and 0 <= int(row[0]) < len(SHAPES) else None

    def put_shape(self, base_url: str, model: str, shape: int) -> None:
        """Record the accepted structured-output shape (errors are ignored, as for replies)."""
        if self.path is None:
            return
        try:
            con = self._connect()
        except Exception as exc:
            if _is_cache_problem(exc):
                return
            raise
        try:
            con.execute("INSERT OR REPLACE INTO llm_shapes VALUES (?, ?, ?, ?)",
                        [base_url, model, shape, datetime.now(timezone.utc).replace(tzinfo=None)])
        except Exception as exc:
            if not _is_cache_problem(exc):
                raise
        finally:
            con.close()


def _is_cache_problem(exc: BaseException) -> bool:
    """Lock conflicts, unwritable folders, corrupt files: reasons to skip caching, not to fail."""
    if isinstance(exc, OSError):
        return True
    try:
        import duckdb

        return isinstance(exc, duckdb.Error)
    except ImportError:
        return True


def canonical_json(obj: Any) -> str:
    """``obj`` as compact JSON with sorted keys (the form hashed into cache keys and stored)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)

