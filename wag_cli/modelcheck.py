"""`wag model check`: the model settings in use and what the server does with them (issue 11 item 5).

:func:`check_model` reports the configured base URL, model, timeout and retries, the reply-cache
file, the models ``GET /models`` serves (a warning when the configured one is not among them), the
structured-output shape the server accepts (:data:`wag_cli.llm.SHAPES`, found with one short
validated request, or the one already recorded for this server) and that request's time. The test
request never reads the reply cache, so the server is really asked.
"""

from __future__ import annotations

import time

from .errors import UsageError

PROBE_SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"],
                "additionalProperties": False}


def check_model() -> dict:
    """``{"base_url", "model", "timeout_s", "retries", "cache", "served", "model_served", "warnings",
    "shape", "test": {"ok", "seconds", "error"}}``. Raises :class:`UsageError` when no model is configured."""
    from .llm import DEFAULT_BASE_URL, LLMError, get_client

    client = get_client()
    if client is None:
        raise UsageError("no model is configured: set OPENAI_API_KEY (and OPENAI_BASE_URL for a local server, "
                         "WAG_CHAT_MODEL for its model); every command works offline without one")
    out = {"base_url": client.base_url or DEFAULT_BASE_URL, "model": client.chat_model, "timeout_s": client.timeout,
           "retries": client.retries, "cache": str(client.cache.path) if client.cache.path else "off",
           "served": None, "model_served": None, "warnings": [], "shape": client.shape,
           "test": {"ok": False, "seconds": None, "error": None}}
    try:
        served = client.list_models()
        out["served"] = served
        out["model_served"] = client.chat_model in served
        if not out["model_served"]:
            out["warnings"].append(f"the server does not list {client.chat_model!r} (it serves: "
                                   f"{', '.join(served[:8]) or 'nothing'}); set WAG_CHAT_MODEL to one of them")
    except LLMError as exc:
        out["warnings"].append(f"GET /models failed: {exc}")
        if client.unavailable:
            out["test"]["error"] = str(exc)
            return out
    started = time.perf_counter()
    try:
        reply = client.chat_json("You check that a connection works.", 'Reply with {"ok": true}.', {"check": 1},
                                 PROBE_SCHEMA, "model_check", use_cache=False)
        out["test"]["ok"] = reply.get("ok") is True
        if not out["test"]["ok"]:
            out["warnings"].append('the test reply was valid JSON but not {"ok": true}')
    except LLMError as exc:
        out["test"]["error"] = str(exc)
    out["test"]["seconds"] = round(time.perf_counter() - started, 2)
    out["shape"] = client.shape
    return out
