"""The raters' web page (DESIGN.md §10 "Human evaluation"): a small stdlib ``http.server`` on
127.0.0.1 serving one page (``web/index.html``, ``web/app.js``, ``web/style.css``: package data, no
external assets) and a JSON API over the evaluation store.

=======================  =========================================================================
``GET /``                the page; the rater id comes from ``?rater=`` (or the page asks for it)
``GET /api/next``        ``?rater=R``: progress and the first query R has not ranked (resume point)
``POST /api/rank``       ``{"rater", "experiment", "query_id", "rankings": {criterion: [labels]}}``:
                         checked (:func:`wag_cli.eval.human_store.check_ranking`), stored with
                         source 'web', answered with the next query; 400 with ``{"error"}`` otherwise
=======================  =========================================================================

Only application/json POSTs are accepted (a page on another site cannot send one without a CORS
preflight, which this server never grants). One connection to the evaluation store is shared by the
request threads under a lock.
"""

from __future__ import annotations

import json
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from urllib.parse import parse_qs, urlparse

import duckdb

from ..errors import UsageError, WagError
from .human_store import check_rater, check_ranking, load_item, next_item, store_ranking, task

STATIC = {"/": ("index.html", "text/html; charset=utf-8"),
          "/app.js": ("app.js", "text/javascript; charset=utf-8"),
          "/style.css": ("style.css", "text/css; charset=utf-8")}
MAX_BODY = 64 * 1024


def _static(name: str) -> bytes:
    return resources.files("wag_cli.eval").joinpath("web", name).read_bytes()


class RaterServer(ThreadingHTTPServer):
    """The HTTP server with the store connection, its lock and the experiments shown."""

    daemon_threads = True

    def __init__(self, address, con: duckdb.DuckDBPyConnection, experiments: list[str] | None = None):
        super().__init__(address, _Handler)
        self.con = con
        self.lock = threading.Lock()
        self.experiments = experiments

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}/"


class _Handler(BaseHTTPRequestHandler):
    server: RaterServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # noqa: A002 - quiet: the CLI prints its own lines
        return

    def _send(self, status: int, body: bytes, ctype: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Content-Security-Policy", "default-src 'self'")
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, payload: dict) -> None:
        self._send(status, json.dumps(payload, default=str).encode("utf-8"), "application/json; charset=utf-8")

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        url = urlparse(self.path)
        if url.path in STATIC:
            name, ctype = STATIC[url.path]
            self._send(HTTPStatus.OK, _static(name), ctype)
        elif url.path == "/api/next":
            try:
                rater = check_rater((parse_qs(url.query).get("rater") or [""])[0])
                with self.server.lock:
                    payload = next_item(self.server.con, rater, self.server.experiments)
                self._json(HTTPStatus.OK, payload)
            except WagError as exc:
                self._json(HTTPStatus.BAD_REQUEST, {"error": str(exc)})
        else:
            self._json(HTTPStatus.NOT_FOUND, {"error": f"no such page: {url.path}"})

    def do_POST(self) -> None:  # noqa: N802
        if urlparse(self.path).path != "/api/rank":
            self._json(HTTPStatus.NOT_FOUND, {"error": "POST /api/rank only"})
            return
        if not (self.headers.get("Content-Type") or "").startswith("application/json"):
            self._json(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, {"error": "send application/json"})
            return
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            self._json(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, {"error": "request too large"})
            return
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
            if not isinstance(body, dict):
                raise UsageError("send a JSON object")
            rater = check_rater(str(body.get("rater", "")))
            exp, qid = str(body.get("experiment", "")), str(body.get("query_id", ""))
            with self.server.lock:
                if (exp, qid) not in task(self.server.con, self.server.experiments):
                    raise UsageError(f"query {qid!r} of experiment {exp!r} is not in this task")
                item = load_item(self.server.con, exp, qid, rater)
                rankings, reason = check_ranking(item.labels, body.get("rankings"))
                if reason:
                    raise UsageError(reason)
                store_ranking(self.server.con, item, rater, rankings, "web")
                payload = next_item(self.server.con, rater, self.server.experiments)
            self._json(HTTPStatus.OK, payload)
        except (WagError, ValueError) as exc:
            self._json(HTTPStatus.BAD_REQUEST, {"error": str(exc)})


def make_server(con: duckdb.DuckDBPyConnection, port: int = 8765, experiments: list[str] | None = None) -> RaterServer:
    """A :class:`RaterServer` bound to 127.0.0.1:``port`` (0 = any free port) over the evaluation
    store ``con`` (DESIGN.md §10). Call ``serve_forever()``; ``shutdown()`` from another thread stops it.
    Raises :class:`WagError` when the port is taken."""
    try:
        return RaterServer(("127.0.0.1", port), con, experiments)
    except OSError as exc:
        raise WagError(f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}; choose another --port") from None
