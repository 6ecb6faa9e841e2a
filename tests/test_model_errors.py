"""Model errors (issue 9 item 10): with a key but no server, or a wrong model name, the first
failure comes back in one line within a few seconds (no silent back-off), later calls of the same
client fail at once with the same message, and `wag ask` falls back offline saying why."""

from __future__ import annotations

import time

import pytest
from typer.testing import CliRunner

from stub_openai import reply_error, reply_json  # noqa: F401
from wag_cli import llm
from wag_cli.cli import app

SCHEMA = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}


def _client(monkeypatch, tmp_path, base_url: str, model: str | None = None) -> llm.LLMClient:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", base_url)
    monkeypatch.delenv("WAG_LLM_RETRIES", raising=False)     # the default: 2 transport retries
    monkeypatch.delenv("WAG_LLM_TIMEOUT", raising=False)
    if model:
        monkeypatch.setenv("WAG_CHAT_MODEL", model)
    return llm.get_client(cache_path=tmp_path / "cache.duckdb")


def test_no_server_fails_once_fast_then_at_once(monkeypatch, tmp_path):
    c = _client(monkeypatch, tmp_path, "http://127.0.0.1:9/v1")   # discard port: nothing listens
    t0 = time.monotonic()
    with pytest.raises(llm.LLMUnavailable) as first:
        c.chat_json("sys", "task", {"q": 1}, SCHEMA, "probe")
    assert time.monotonic() - t0 < 3.0
    assert c.http_calls == 1                      # not retried
    msg = str(first.value)
    assert "cannot reach the model server at http://127.0.0.1:9/v1" in msg and "\n" not in msg
    t0 = time.monotonic()
    with pytest.raises(llm.LLMUnavailable) as second:
        c.chat_text("sys", "task", {"q": 2})
    assert time.monotonic() - t0 < 0.2 and c.http_calls == 1 and str(second.value) == msg


def test_wrong_model_name_is_named(monkeypatch, tmp_path, stub_openai):
    c = _client(monkeypatch, tmp_path, stub_openai.base_url, model="gpt-nonexistent")
    stub_openai.queue(reply_error(404, "The model `gpt-nonexistent` does not exist"))
    with pytest.raises(llm.LLMUnavailable) as err:
        c.chat_json("sys", "task", {"q": 1}, SCHEMA, "probe")
    msg = str(err.value)
    assert "HTTP 404" in msg and "'gpt-nonexistent'" in msg and "WAG_CHAT_MODEL" in msg and "\n" not in msg
    n = len(stub_openai.requests)
    with pytest.raises(llm.LLMUnavailable):
        c.chat_text("sys", "task", {"q": 2})
    assert len(stub_openai.requests) == n         # no second request to a server that refused


def test_after_a_success_failures_stay_per_call(monkeypatch, tmp_path, stub_openai):
    c = _client(monkeypatch, tmp_path, stub_openai.base_url)
    c._client = c._client.with_options(max_retries=0)
    stub_openai.queue(reply_json({"a": 1}), reply_error(500, "boom"), reply_json({"a": 3}))
    assert c.chat_json("sys", "t", {"q": 1}, SCHEMA, "p") == {"a": 1}
    with pytest.raises(llm.LLMUnavailable, match="HTTP 500"):
        c.chat_json("sys", "t", {"q": 2}, SCHEMA, "p")
    assert c.chat_json("sys", "t", {"q": 3}, SCHEMA, "p") == {"a": 3}


def test_ask_falls_back_offline_and_says_why(built_db, monkeypatch, tmp_path):
    monkeypatch.setenv("WAG_DB", str(built_db))
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("WAG_LLM_CACHE", "off")
    monkeypatch.delenv("WAG_LLM_RETRIES", raising=False)
    t0 = time.monotonic()
    res = CliRunner().invoke(app, ["ask", "How did I sleep this week?", "--subject", "pmdata:p01", "--json"])
    elapsed = time.monotonic() - t0
    assert res.exit_code == 0, res.output
    import json

    out = json.loads(res.stdout)
    text = json.dumps(out)
    assert "cannot reach the model server at http://127.0.0.1:9/v1" in text
    assert "offline" in text
    assert elapsed < 8
