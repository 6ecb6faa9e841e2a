"""Model settings: defaults, the environment variables that override them, and the model-layer errors.

Configuration (environment), read by :meth:`LLMConfig.from_env`:

============================  =====================================================================
``OPENAI_API_KEY``            required for the model path; without it :func:`wag_cli.llm.get_client`
                              returns None
``OPENAI_BASE_URL``           any OpenAI-compatible server (vLLM, Ollama, llama.cpp, DeepSeek...)
``WAG_CHAT_MODEL``            chat model (default ``gpt-4o-mini``)
``WAG_EMBED_MODEL``           embedding model (default ``text-embedding-3-small``; empty = disabled)
``WAG_LLM_TIMEOUT``           seconds per HTTP request (default 300: CPU-only local servers are slow;
                              a timed-out request is never repeated into the busy server)
``WAG_LLM_RETRIES``           retries of a refused connection / HTTP 429, 502, 503 (never of a timeout)
                              and, separately, corrective re-asks after an invalid JSON reply (default 2)
``WAG_LLM_CACHE``             reply-cache DuckDB file, read by :func:`wag_cli.llm.cache.default_cache_path`
============================  =====================================================================

Shapes: :class:`LLMConfig` (frozen dataclass: ``api_key``, ``base_url``, ``chat_model``,
``embed_model``, ``timeout``, ``retries``).

Errors: :class:`LLMUnavailable` (timeout, connection, auth, HTTP status, disabled embeddings) and
:class:`LLMReplyError` (the model kept answering with unusable content), both :class:`LLMError`, a
one-line :class:`wag_cli.errors.WagError` (exit code 4), so callers can fall back to the offline
path. A malformed ``WAG_LLM_TIMEOUT`` / ``WAG_LLM_RETRIES`` is a :class:`wag_cli.errors.UsageError`.
:func:`one_line` words every message of the layer on one line.

A leaf of the package: it imports nothing from the other ``wag_cli.llm`` modules.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any

from ..errors import UsageError, WagError

DEFAULT_CHAT_MODEL = "gpt-4o-mini"
DEFAULT_EMBED_MODEL = "text-embedding-3-small"
DEFAULT_TIMEOUT = 300.0   # seconds; a CPU-only local server needs > 90 s for a first 2k-token prompt
DEFAULT_RETRIES = 2
CONNECT_TIMEOUT = 3.0      # seconds to open a connection (a missing server fails fast)
DEFAULT_BASE_URL = "https://api.openai.com/v1"
EMBED_BATCH = 128          # texts per embeddings request
ECHO_LIMIT = 2000          # characters of a bad reply shown back to the model when re-asking


class LLMError(WagError):
    """Base of the model-layer errors (one-line message, exit code 4)."""

    exit_code = 4


class LLMUnavailable(LLMError):
    """The model cannot be used: disabled, unreachable, timed out, refused the key or the request."""


class LLMReplyError(LLMError):
    """The model answered, but not with usable content (bad JSON, schema violation, empty)."""


@dataclass(frozen=True)
class LLMConfig:
    """Resolved model settings (see the module docstring for the environment variables)."""

    api_key: str
    base_url: str | None = None
    chat_model: str = DEFAULT_CHAT_MODEL
    embed_model: str | None = DEFAULT_EMBED_MODEL
    timeout: float = DEFAULT_TIMEOUT
    retries: int = DEFAULT_RETRIES

    @classmethod
    def from_env(cls) -> "LLMConfig | None":
        """Settings from the environment, or None when ``OPENAI_API_KEY`` is unset/empty.

        Raises :class:`UsageError` for a malformed ``WAG_LLM_TIMEOUT`` / ``WAG_LLM_RETRIES``.
        """
        key = os.environ.get("OPENAI_API_KEY", "").strip()
        if not key:
            return None
        embed = os.environ.get("WAG_EMBED_MODEL")
        return cls(
            api_key=key,
            base_url=os.environ.get("OPENAI_BASE_URL", "").strip() or None,
            chat_model=os.environ.get("WAG_CHAT_MODEL", "").strip() or DEFAULT_CHAT_MODEL,
            embed_model=DEFAULT_EMBED_MODEL if embed is None else (embed.strip() or None),
            timeout=_env_number("WAG_LLM_TIMEOUT", DEFAULT_TIMEOUT, float, minimum=0.001),
            retries=_env_number("WAG_LLM_RETRIES", DEFAULT_RETRIES, int, minimum=0),
        )


def _env_number(name: str, default, kind, *, minimum):
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = kind(raw)
    except ValueError:
        raise UsageError(f"{name}={raw!r} is not a valid {kind.__name__}") from None
    if not (value >= minimum) or (isinstance(value, float) and not math.isfinite(value)):
        raise UsageError(f"{name}={raw!r} must be >= {minimum}")
    return value


def one_line(text: Any, limit: int = 200) -> str:
    """``text`` with its whitespace collapsed to single spaces, cut to ``limit`` characters ("...")."""
    s = " ".join(str(text).split())
    return s if len(s) <= limit else s[: limit - 3] + "..."

