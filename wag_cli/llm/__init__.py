"""The optional language-model layer: an OpenAI-compatible client that treats every reply as untrusted.

DESIGN.md §1: every LLM step has a deterministic offline path, so this package is only used when an
API key is configured. §8 (QueryParse, answering) and §9 (graph generation: JSON outputs validated,
cached) call it through :class:`LLMClient`.

One module a job, each importing only those above it in this list:

* :mod:`~wag_cli.llm.config` — defaults, :class:`LLMConfig` read from the environment (the
  variables are listed there), the errors :class:`LLMError`, :class:`LLMUnavailable`,
  :class:`LLMReplyError` (one line, exit code 4, so callers can fall back to the offline path);
* :mod:`~wag_cli.llm.shapes` — the structured-output request shapes :data:`SHAPES` and
  :func:`response_format`;
* :mod:`~wag_cli.llm.cache` — :class:`ReplyCache` (validated replies and accepted shapes in a DuckDB
  file) and :func:`default_cache_path`;
* :mod:`~wag_cli.llm.messages` — :data:`GUARD_RULES`, :func:`fence_data`, :func:`fence_text`,
  :func:`build_messages`, :func:`json_messages` (caller data only inside one fenced block nothing can
  close);
* :mod:`~wag_cli.llm.schema` — :func:`check_schema`, :func:`schema_errors`, :func:`parse_reply`
  (validation is the ``jsonschema`` library's, Draft 2020-12; replies are parsed with
  :func:`json.loads`, NaN/Infinity rejected, never evaluated, never used as SQL);
* :mod:`~wag_cli.llm.client` — :class:`LLMClient` (HTTP, retries, shape negotiation, re-asks,
  caching) and :func:`get_client`.

This module only re-exports those names, so ``from wag_cli.llm import get_client`` keeps working.
"""

from __future__ import annotations

from .cache import ReplyCache, default_cache_path
from .client import LLMClient, get_client
from .config import (
    CONNECT_TIMEOUT,
    DEFAULT_BASE_URL,
    DEFAULT_CHAT_MODEL,
    DEFAULT_EMBED_MODEL,
    DEFAULT_RETRIES,
    DEFAULT_TIMEOUT,
    ECHO_LIMIT,
    EMBED_BATCH,
    LLMConfig,
    LLMError,
    LLMReplyError,
    LLMUnavailable,
)
from .messages import GUARD_RULES, build_messages, fence_data, fence_text, json_messages
from .schema import check_schema, parse_reply, schema_errors
from .shapes import SHAPES, response_format

__all__ = [
    "CONNECT_TIMEOUT", "DEFAULT_BASE_URL", "DEFAULT_CHAT_MODEL", "DEFAULT_EMBED_MODEL", "DEFAULT_RETRIES",
    "DEFAULT_TIMEOUT", "ECHO_LIMIT", "EMBED_BATCH", "GUARD_RULES", "SHAPES", "LLMClient", "LLMConfig",
    "LLMError", "LLMReplyError", "LLMUnavailable", "ReplyCache", "build_messages", "check_schema",
    "default_cache_path", "fence_data", "fence_text", "get_client", "json_messages", "parse_reply",
    "response_format", "schema_errors",
]
