"""A tiny OpenAI-compatible HTTP server for offline tests of the model path (stdlib only).

It listens on 127.0.0.1 (a free port, in a daemon thread) and answers what ``wag_cli.llm`` uses:

* ``POST /v1/chat/completions`` — pops the next scripted reply from ``stub.replies`` (or uses
  ``stub.default_reply``). A reply is a dict built by the helpers below:
  ``reply_json(obj)`` / ``reply_text(str)`` (message content), ``reply_sleep(seconds, then)``
  (wait before answering, to trip a client timeout), ``reply_error(status, message)`` (an
  OpenAI-style error body). With ``stub.reject_json_schema = True`` it behaves like the llama.cpp
  server: any request with ``response_format.type == "json_schema"`` gets HTTP
  ``stub.reject_status`` (400 by default; 500 is what llama.cpp's server sends) with a message naming
  the response format (no reply popped). ``stub.models`` lists what ``GET /v1/models`` serves.
* ``POST /v1/embeddings`` — deterministic unit vectors of ``EMBED_DIM`` floats from sha256(text).
* ``GET /v1/models`` — the ids in ``stub.models``.

Every request is recorded in ``stub.requests`` as ``{"method", "path", "body"}`` (body = parsed JSON)
so a test can check exactly what the model would have received. Use the ``stub_openai`` fixture, or
``with StubOpenAI() as stub: ...``. Register the fixture for all tests with
``pytest_plugins = ["stub_openai"]`` in tests/conftest.py (tests/ must be on ``pythonpath``).
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

EMBED_DIM = 16


def reply_json(obj) -> dict:
    """A chat reply whose content is ``obj`` serialised as JSON."""
    return {"content": json.dumps(obj)}


def reply_text(text: str) -> dict:
    """A chat reply with free-text (possibly non-JSON) content."""
    return {"content": text}


def reply_sleep(seconds: float, then: dict | None = None) -> dict:
    """Wait ``seconds`` before sending ``then`` (default: an empty JSON object)."""
    return {**(then or reply_json({})), "sleep": seconds}


def reply_error(status: int, message: str = "scripted error") -> dict:
    """An HTTP error with an OpenAI-style ``{"error": {...}}`` body."""
    return {"status": status, "message": message}


def fake_embedding(text: str, dim: int = EMBED_DIM) -> list[float]:
    """Deterministic unit vector for ``text`` (same text -> same vector)."""
    raw = hashlib.sha256(text.encode("utf-8")).digest()
    vec = [(raw[i % len(raw)] - 127.5) / 127.5 for i in range(dim)]
    norm = math.sqrt(sum(v * v for v in vec)) or 1.0
    return [v / norm for v in vec]


class _Handler(BaseHTTPRequestHandler):
    server_version = "StubOpenAI/1"

    def log_message(self, *args):  # keep pytest output clean
        pass

    def _send(self, status: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
            pass

    def _error(self, status: int, message: str, param: str | None = None) -> None:
        self._send(status, {"error": {"message": message, "type": "invalid_request_error",
                                      "param": param, "code": None}})

    def _record(self, body) -> None:
        stub = self.server.stub
        with stub.lock:
            stub.requests.append({"method": self.command, "path": self.path, "body": body})

    def do_GET(self):
        self._record(None)
        if self.path.rstrip("/").endswith("/models"):
            self._send(200, {"object": "list", "data": [{"id": m, "object": "model", "created": 0,
                                                         "owned_by": "stub"} for m in self.server.stub.models]})
        else:
            self._error(404, f"no route {self.path}")

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"null")
        self._record(body)
        stub = self.server.stub
        if self.path.endswith("/embeddings"):
            inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
            data = [{"object": "embedding", "index": i, "embedding": fake_embedding(t, stub.embed_dim)}
                    for i, t in enumerate(inputs)]
            self._send(200, {"object": "list", "data": data, "model": body.get("model"),
                             "usage": {"prompt_tokens": 0, "total_tokens": 0}})
            return
        if not self.path.endswith("/chat/completions"):
            self._error(404, f"no route {self.path}")
            return
        rf = body.get("response_format") or {}
        if stub.reject_json_schema and rf.get("type") == "json_schema":
            self._error(stub.reject_status, "response_format type json_schema is not supported", "response_format")
            return
        with stub.lock:
            reply = stub.replies.popleft() if stub.replies else dict(stub.default_reply)
        if reply.get("sleep"):
            time.sleep(reply["sleep"])
        if reply.get("status"):
            self._error(reply["status"], reply.get("message", "scripted error"))
            return
        self._send(200, {
            "id": f"chatcmpl-stub{len(stub.requests)}", "object": "chat.completion", "created": 0,
            "model": body.get("model"),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": reply.get("content")}}],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        })


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):  # no tracebacks for dropped clients
        pass


class StubOpenAI:
    """The server plus its script (``replies``), switches and request log (``requests``)."""

    def __init__(self, embed_dim: int = EMBED_DIM):
        self.requests: list[dict] = []
        self.replies: deque[dict] = deque()
        self.default_reply = reply_json({"ok": True})
        self.reject_json_schema = False
        self.reject_status = 400
        self.models = ["stub-model"]
        self.embed_dim = embed_dim
        self.lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.stub = self
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>/v1`` — the value for OPENAI_BASE_URL."""
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def queue(self, *replies: dict) -> None:
        """Append scripted chat replies (served in order)."""
        with self.lock:
            self.replies.extend(replies)

    def bodies(self, endpoint: str = "/chat/completions") -> list:
        """Recorded request bodies for one endpoint, oldest first."""
        return [r["body"] for r in self.requests if r["path"].endswith(endpoint)]

    def start(self) -> "StubOpenAI":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


@pytest.fixture
def stub_openai():
    """A running :class:`StubOpenAI` for one test (stopped afterwards)."""
    with StubOpenAI() as stub:
        yield stub
