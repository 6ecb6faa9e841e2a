"""Starting a real ``llama_cpp.server`` for the opt-in real-model tests (one helper for the three of
them): a free port on 127.0.0.1, the server's output in ``log``, ready when ``/v1/models`` answers."""

from __future__ import annotations

import socket
import subprocess
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def llama_server(python: str, model: Path, log: Path, *, n_ctx: int = 4096, n_threads: str | None = None,
                 ready_seconds: int = 180):
    """Yield the base URL (``http://127.0.0.1:<port>/v1``) of a server of ``model``, started with
    ``python -m llama_cpp.server``; fail the test (with the log's tail) when it stops or is not ready
    within ``ready_seconds``; terminate it afterwards."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    args = [python, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1", "--port", str(port),
            "--n_ctx", str(n_ctx)] + (["--n_threads", n_threads] if n_threads else [])
    with log.open("w") as fh:
        proc = subprocess.Popen(args, stdout=fh, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        limit = time.monotonic() + ready_seconds
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama_cpp.server stopped ({proc.returncode}): {log.read_text()[-1500:]}")
            try:
                urllib.request.urlopen(f"{url}/models", timeout=2).close()
                break
            except OSError:
                if time.monotonic() > limit:
                    pytest.fail(f"llama_cpp.server not ready after {ready_seconds} s: {log.read_text()[-1500:]}")
                time.sleep(1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
