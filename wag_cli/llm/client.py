"""The model client: an OpenAI-compatible HTTP client that treats every reply as untrusted.

:func:`get_client` gives the configured :class:`LLMClient` (settings: :mod:`wag_cli.llm.config`), or
None for the offline path. The client sends the messages of :mod:`wag_cli.llm.messages` in the
structured-output shape the server accepts (:mod:`wag_cli.llm.shapes`), validates every JSON reply
(:mod:`wag_cli.llm.schema`), re-asks a bad one with a short correction, and caches validated replies
and embeddings (:mod:`wag_cli.llm.cache`). A timed-out request is never sent again (a CPU-only
server is still working on it); refused connections and HTTP 429/502/503 are retried once the server
has answered.

Shapes: :meth:`LLMClient.chat_json` returns the parsed JSON value, :meth:`LLMClient.chat_text` a
string, :meth:`LLMClient.embed` a list of float vectors.

Errors: :class:`~wag_cli.llm.config.LLMUnavailable` (transport, server, disabled embeddings) and
:class:`~wag_cli.llm.config.LLMReplyError` (still unusable after the retries); ``ValueError`` for an
invalid JSON Schema; :class:`wag_cli.errors.UsageError` for malformed settings.
"""

from __future__ import annotations

import hashlib
import math
import re
import time
from pathlib import Path
from typing import Any

from .cache import MISS, ReplyCache, canonical_json, default_cache_path
from .config import CONNECT_TIMEOUT, DEFAULT_BASE_URL, ECHO_LIMIT, EMBED_BATCH, LLMConfig, LLMReplyError, LLMUnavailable, one_line
from .messages import build_messages, json_messages
from .schema import check_schema, parse_reply, schema_errors
from .shapes import _SHAPE_BY_SERVER, FORMAT_WORDS, SHAPES, response_format


def get_client(offline: bool = False, cache_path: Path | None = None) -> "LLMClient | None":
    """The configured :class:`LLMClient`, or None for the offline path.

    None when ``offline`` is true or ``OPENAI_API_KEY`` is not set (the default on a fresh machine).
    ``cache_path`` overrides :func:`default_cache_path`. Raises :class:`UsageError` on malformed settings.
    """
    if offline:
        return None
    config = LLMConfig.from_env()
    if config is None:
        return None
    return LLMClient(config, cache_path=cache_path if cache_path is not None else default_cache_path())


class _Retryable(Exception):
    """A refused connection or HTTP 429/502/503: retried once the server has answered before."""


class _Rejected(Exception):
    """HTTP 400, or a 500 naming the response format (used to step down the request shapes)."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


class LLMClient:
    """A thin, defensive wrapper around ``openai.OpenAI`` (see the module docstring).

    Attributes: ``chat_model``, ``embed_model`` (None = embeddings disabled), ``base_url``,
    ``timeout``, ``retries``, ``cache`` (:class:`ReplyCache`), ``http_calls`` (requests sent by this
    instance, for diagnostics), ``usage`` (server-reported token counts, summed),
    ``last_from_cache`` (True when the last chat reply came from the reply cache) and
    :attr:`shape` (the structured-output shape this server accepts, once known).
    """

    def __init__(self, config: LLMConfig, cache_path: Path | None = None):
        import openai

        self._openai = openai
        self.config = config
        self.chat_model = config.chat_model
        self.embed_model = config.embed_model
        self.timeout = config.timeout
        self.retries = config.retries
        timeout = openai.Timeout(config.timeout, connect=min(config.timeout, CONNECT_TIMEOUT))
        # max_retries=0: the SDK would retry a timed-out request into a server that is still busy with
        # it (a CPU-only local server); :meth:`_call` retries only refused connections and 429/502/503.
        self._client = openai.OpenAI(api_key=config.api_key, base_url=config.base_url or DEFAULT_BASE_URL,
                                     timeout=timeout, max_retries=0)
        self.base_url = str(self._client.base_url).rstrip("/") or DEFAULT_BASE_URL
        self.cache = ReplyCache(cache_path)
        self.http_calls = 0
        self.usage = {"requests": 0, "prompt_tokens": 0, "completion_tokens": 0}  # server-reported, summed
        self.last_from_cache = False
        self.last_messages: list[dict] = []   # the messages of the last chat call (prompt-size reports)
        # issue 9 item 10: until the server has answered once, a request is not retried (no server or
        # a wrong model name fails in one request, not after seconds of back-off), and a failure then
        # makes every later call of this client fail at once with the same message (offline from then
        # on). Once the server has answered, refused connections and 429/502/503 are retried.
        self._reached = False
        self.unavailable: str | None = None

    # ---- structured-output shape (issue 11 item 4)

    @property
    def shape(self) -> str | None:
        """The accepted shape of :data:`SHAPES` for this base URL and model, or None if not yet known."""
        key = (self.base_url, self.chat_model)
        if key not in _SHAPE_BY_SERVER:
            level = self.cache.get_shape(self.base_url, self.chat_model)
            if level is None:
                return None
            _SHAPE_BY_SERVER[key] = level
        return SHAPES[_SHAPE_BY_SERVER[key]]

    def _remember_shape(self, level: int) -> None:
        key = (self.base_url, self.chat_model)
        if _SHAPE_BY_SERVER.get(key) != level:
            _SHAPE_BY_SERVER[key] = level
            self.cache.put_shape(self.base_url, self.chat_model, level)

    # ---- transport

    def _call(self, fn, **kwargs):
        """Run one SDK call, ``fn(sdk_client)`` giving the method; map every SDK failure to a one-line
        error (a rejected request shape -> :class:`_Rejected`)."""
        if self.unavailable is not None:
            raise LLMUnavailable(self.unavailable)
        attempt = 0
        while True:
            try:
                out = self._send(fn, **kwargs)
                break
            except _Retryable as exc:
                attempt += 1
                if not self._reached or attempt > self.retries:
                    err = LLMUnavailable(str(exc))
                    if not self._reached:
                        self.unavailable = str(err)
                    raise err from None
                time.sleep(min(0.5 * 2 ** (attempt - 1), 4.0))
            except LLMUnavailable as exc:
                if not self._reached:
                    self.unavailable = str(exc)
                raise
        self._reached = True
        return out

    def _send(self, fn, **kwargs):
        oa = self._openai
        self.http_calls += 1
        fn = fn(self._client)
        try:
            return fn(**kwargs)
        except oa.APITimeoutError:
            raise LLMUnavailable(
                f"model server timed out after {self.timeout:g} s ({self.base_url}); the request was not "
                "repeated (the server may still be working on it; raise WAG_LLM_TIMEOUT)") from None
        except oa.APIConnectionError:
            raise _Retryable(f"cannot reach the model server at {self.base_url}") from None
        except oa.BadRequestError as exc:
            raise _Rejected(one_line(getattr(exc, "message", exc)), 400) from None
        except oa.AuthenticationError:
            raise LLMUnavailable(f"the model server at {self.base_url} refused the API key (HTTP 401)") from None
        except oa.NotFoundError as exc:
            raise LLMUnavailable(
                f"model server at {self.base_url} answered HTTP 404 for model {self.chat_model!r} "
                f"(check WAG_CHAT_MODEL / WAG_EMBED_MODEL): {one_line(getattr(exc, 'message', exc), 100)}"
            ) from None
        except oa.APIStatusError as exc:
            msg = one_line(getattr(exc, "message", exc), 120)
            if exc.status_code == 500 and FORMAT_WORDS.search(msg):
                raise _Rejected(msg, 500) from None
            if exc.status_code in (429, 502, 503):
                raise _Retryable(f"model server answered HTTP {exc.status_code}: {msg}") from None
            raise LLMUnavailable(f"model server answered HTTP {exc.status_code}: {msg}") from None
        except oa.OpenAIError as exc:
            raise LLMUnavailable(f"model call failed: {one_line(exc, 160)}") from None

    def _chat(self, messages: list[dict], temperature: float, schema: dict | None = None,
              name: str = "reply") -> str | None:
        """One completion. With ``schema``: in the shape this server accepts (:attr:`shape`), else
        trying :data:`SHAPES` in order, stepping down when a 400 or 500 names the response format;
        the shape that worked is remembered per base URL and model.

        Returns the message content (None if the model sent none). Raises :class:`LLMUnavailable`.
        """
        known = self.shape
        level = SHAPES.index(known) if (schema is not None and known) else 0
        while True:
            kwargs = {"model": self.chat_model, "messages": messages, "temperature": temperature}
            fmt = response_format(SHAPES[level], schema, name) if schema is not None else None
            if fmt is not None:
                kwargs["response_format"] = fmt
            try:
                resp = self._call(lambda c: c.chat.completions.create, **kwargs)
            except _Rejected as exc:
                if fmt is not None and level + 1 < len(SHAPES) and FORMAT_WORDS.search(str(exc)):
                    level += 1
                    continue
                raise LLMUnavailable(f"model server rejected the request (HTTP {exc.status}): {exc}") from None
            if schema is not None:
                self._remember_shape(level)
            break
        used = getattr(resp, "usage", None)
        self.usage["requests"] += 1
        for k in ("prompt_tokens", "completion_tokens"):
            self.usage[k] += int(getattr(used, k, 0) or 0)
        choices = getattr(resp, "choices", None) or []
        if not choices:
            return None
        choice = choices[0]
        content = getattr(choice.message, "content", None)
        if getattr(choice, "finish_reason", None) == "length" and content is not None:
            content = content + "\n[reply cut off at the token limit]"
        return content

    def _key(self, model: str, **request) -> tuple[str, dict]:
        """``(sha256 hex of the canonical request, request)``; the request includes base_url and model."""
        req = {"base_url": self.base_url, "model": model, **request}
        return hashlib.sha256(canonical_json(req).encode("utf-8")).hexdigest(), req

    # ---- public API

    def list_models(self) -> list[str]:
        """Model ids served at ``GET /models`` (sorted). Raises :class:`LLMUnavailable`."""
        resp = self._call(lambda c: c.models.list)
        return sorted(str(getattr(m, "id", m)) for m in (getattr(resp, "data", None) or []))

    def chat_json(self, system: str, instruction: str, data: dict | list | str, schema: dict, name: str,
                  temperature: float = 0.1, *, data_format: str = "json", use_cache: bool = True) -> dict:
        """Ask for a JSON reply conforming to ``schema`` and return it parsed and validated.

        Messages: ``build_messages(system, instruction + schema note, data, data_format)``. The
        request shape is the one this server accepts (:attr:`shape`; discovered on the first call by
        trying :data:`SHAPES` in order, stepping down on a 400/500 that names the response format).
        An unparsable or non-conforming reply (``jsonschema``) is re-asked up to ``retries`` times with
        a short corrective message. Validated replies are cached (key: base_url, model, messages,
        schema, temperature; ``use_cache`` False skips the lookup); :attr:`last_from_cache` says
        whether this reply came from the cache. Returns the parsed JSON value.

        Raises :class:`LLMReplyError` (still unusable after the retries), :class:`LLMUnavailable`
        (transport/server failure) and ``ValueError`` (``schema`` is not a valid JSON Schema).
        """
        check_schema(schema)
        safe_name = re.sub(r"[^A-Za-z0-9_-]", "_", name or "reply")[:64]
        messages = json_messages(system, instruction, data, schema, data_format=data_format)
        primary = response_format("json_schema", schema, safe_name)
        key, request = self._key(self.chat_model, messages=messages, response_format=primary,
                                 temperature=temperature)
        self.last_messages = messages
        self.last_from_cache = False
        cached = self.cache.get(key) if use_cache else MISS
        if cached is not MISS and not schema_errors(cached, schema):
            self.last_from_cache = True
            return cached

        convo, reason = messages, ""
        for _attempt in range(self.retries + 1):
            content = self._chat(convo, temperature, schema, safe_name)
            value, reason = parse_reply(content, schema)
            if reason is None:
                self.cache.put(key, self.chat_model, "chat_json", request, value)
                return value
            convo = messages + [
                {"role": "assistant", "content": (content or "")[:ECHO_LIMIT]},
                {"role": "user", "content": f"That reply is unusable: {reason}. Send the corrected reply: "
                                            "one JSON value conforming to the schema, nothing else."},
            ]
        raise LLMReplyError(f"model reply for {safe_name} unusable after {self.retries + 1} attempt(s): {reason}")

    def chat_text(self, system: str, instruction: str, data: dict | list | str, temperature: float = 0.1,
                  *, data_format: str = "json") -> str:
        """A free-text reply (same system rules and data fencing as :meth:`chat_json`); cached.

        An empty reply is re-asked up to ``retries`` times, then :class:`LLMReplyError`;
        transport failures raise :class:`LLMUnavailable`. Returns the stripped text;
        :attr:`last_from_cache` says whether it came from the reply cache.
        """
        messages = build_messages(system, instruction, data, data_format=data_format)
        key, request = self._key(self.chat_model, messages=messages, response_format=None, temperature=temperature)
        cached = self.cache.get(key)
        self.last_messages = messages
        self.last_from_cache = False
        if isinstance(cached, str) and cached.strip():
            self.last_from_cache = True
            return cached
        for _attempt in range(self.retries + 1):
            content = self._chat(messages, temperature)
            if content and content.strip():
                text = content.strip()
                self.cache.put(key, self.chat_model, "chat_text", request, text)
                return text
        raise LLMReplyError(f"model sent an empty reply {self.retries + 1} time(s)")

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Embedding vectors, one per text, in input order (cached per text).

        Raises :class:`LLMUnavailable` when embeddings are disabled (``WAG_EMBED_MODEL`` empty) or the
        server fails, :class:`LLMReplyError` when it returns the wrong number of vectors, non-finite
        numbers or vectors of different lengths.
        """
        if not self.embed_model:
            raise LLMUnavailable("embeddings are disabled (WAG_EMBED_MODEL is empty)")
        texts = [str(t) for t in texts]
        if not texts:
            return []
        keys = [self._key(self.embed_model, kind="embed", input=t) for t in texts]
        found = self.cache.get_many([k for k, _ in keys])
        out: list[list[float] | None] = [found.get(k) for k, _ in keys]
        todo = [i for i, v in enumerate(out) if not _is_vector(v)]
        fresh = []
        for start in range(0, len(todo), EMBED_BATCH):
            batch = todo[start:start + EMBED_BATCH]
            try:
                resp = self._call(lambda c: c.embeddings.create, model=self.embed_model,
                                  input=[texts[i] for i in batch], encoding_format="float")
            except _Rejected as exc:
                raise LLMUnavailable(f"embedding request rejected (HTTP 400): {exc}") from None
            items = sorted(getattr(resp, "data", None) or [], key=lambda d: d.index)
            if len(items) != len(batch):
                raise LLMReplyError(f"embedding server returned {len(items)} vectors for {len(batch)} texts")
            for i, item in zip(batch, items):
                vec = [float(x) for x in item.embedding] if isinstance(item.embedding, list) else None
                if not _is_vector(vec):
                    raise LLMReplyError("embedding server returned a malformed vector")
                out[i] = vec
                fresh.append((keys[i][0], self.embed_model, "embed", keys[i][1], vec))
        if len({len(v) for v in out}) != 1:
            raise LLMReplyError("embedding vectors have different lengths")
        self.cache.put_many(fresh)
        return out  # type: ignore[return-value]


def _is_vector(v: Any) -> bool:
    return (isinstance(v, list) and len(v) > 0
            and all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in v))
