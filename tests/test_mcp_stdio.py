"""`wag mcp` as a real process (issue 29): a client talks to it over stdio (initialize, list tools,
call tools), it keeps answering while `wag build` replaces the warehouse file and answers from the
new file after the swap, the README's client snippet starts it, and `--http` serves streamable HTTP.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

REPO = Path(__file__).resolve().parents[1]
WAG = str(Path(sys.executable).with_name("wag"))     # the console script of this environment
FILES = ["fitbit/sleep.json", "fitbit/resting_heart_rate.json", "fitbit/sedentary_minutes.json",
         "pmsys/wellness.csv"]


def _env(**extra) -> dict[str, str]:
    """This process's environment without a model key, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    return {**env, "DO_NOT_TRACK": "1", **extra}


def _params(db: Path, command: str = WAG, args: list[str] | None = None, **env) -> StdioServerParameters:
    return StdioServerParameters(command=command, args=args or ["mcp"],
                                 env={"WAG_DB": str(db), "DO_NOT_TRACK": "1", **env})


@asynccontextmanager
async def _stdio(params: StdioServerParameters):
    async with Client(params, mode="legacy", read_timeout_seconds=120) as client:   # the initialize handshake
        yield client


async def _data(client: Client, tool: str, args: dict) -> dict:
    res = await client.call_tool(tool, args)
    assert not res.is_error, res.content[0].text
    return res.structured_content


def test_a_client_talks_to_wag_mcp_over_stdio(built_db):
    async def main():
        async with _stdio(_params(built_db)) as client:
            assert client.server_info.name == "wag-warehouse"
            names = {t.name for t in (await client.list_tools()).tools}
            assert {"ask", "run_sql", "list_subjects", "explain_edge"} <= names
            answer = await _data(client, "ask", {"question": "How did I sleep this week?", "subject": "pmdata:p01"})
            rows = await _data(client, "run_sql", {"query": "select count(distinct subject_id) as n from metric_values"})
            refused = await client.call_tool("run_sql", {"query": "attach '/tmp/x.duckdb'"})
            return answer, rows, refused

    answer, rows, refused = anyio.run(main)
    cli = subprocess.run([WAG, "ask", "How did I sleep this week?", "--subject", "pmdata:p01", "--json", "--offline"],
                         env=_env(WAG_DB=str(built_db)), capture_output=True, text=True)
    assert cli.returncode == 0, cli.stderr
    assert answer["answer"] == json.loads(cli.stdout)["answer"]
    subjects = subprocess.run([WAG, "subjects", "--json"], env=_env(WAG_DB=str(built_db)),
                              capture_output=True, text=True)
    assert rows["rows"] == [{"n": len(json.loads(subjects.stdout)["subjects"])}]
    assert refused.is_error and "ATTACH" in refused.content[0].text


def test_the_server_keeps_answering_through_a_build_and_reads_the_new_file(built_db, shared_data, tmp_path):
    """The server starts on a copy of the excerpts warehouse; `wag build` on four files of one PMData
    participant (a separate process) replaces that file while the server runs."""
    data = tmp_path / "data"
    for f in FILES:
        (data / "pmdata" / "p01" / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(shared_data / "pmdata" / "p01" / f, data / "pmdata" / "p01" / f)
    db = tmp_path / "wh" / "wag.duckdb"
    db.parent.mkdir()
    shutil.copy(built_db, db)
    staging = db.parent / f".{db.name}.build" / db.name

    async def subjects(client) -> list[str]:
        return [s["subject_id"] for s in (await _data(client, "list_subjects", {}))["subjects"]]

    async def main():
        async with _stdio(_params(db)) as client:
            before = await subjects(client)
            build = subprocess.Popen([WAG, "build", "--data-dir", str(data)], stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True,
                                     env=_env(WAG_DB=str(db)))
            during, deadline = [], time.monotonic() + 300
            while build.poll() is None and time.monotonic() < deadline:
                if staging.exists():          # dbt is writing the new file: the server reads the old one
                    during.append(await subjects(client))
                await anyio.sleep(0.5)
            output = build.communicate(timeout=300)[0]
            assert build.returncode == 0, output
            after = await subjects(client)
            sql = await _data(client, "run_sql", {"query": "select distinct subject_id from metric_values"})
            return before, during, after, sql

    before, during, after, sql = anyio.run(main)
    assert len(before) > 1 and "pmdata:p01" in before
    assert after == ["pmdata:p01"] and sql["rows"] == [{"subject_id": "pmdata:p01"}]
    # every answer while the build ran came from one whole file: the old one until the swap, the new
    # one after it (the staging folder is removed just after the swap), never an error or a mixture
    seen = ["old" if d == before else "new" if d == after else d for d in during]
    assert seen and seen[0] == "old" and set(seen) <= {"old", "new"}
    assert seen == sorted(seen, key=["old", "new"].index)


def _readme_server() -> dict:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", text, flags=re.S) if "mcpServers" in b]
    assert len(blocks) == 1, "one client snippet in the README"
    (server,) = blocks[0]["mcpServers"].values()
    return server


def test_the_readme_snippet_starts_the_server(built_db):
    server = _readme_server()
    assert server["command"] == "wag" and set(server["env"]) == {"WAG_DB"}
    # the snippet's command, from this environment's scripts folder (a client runs it from PATH)
    params = StdioServerParameters(command=WAG, args=server["args"],
                                   env={**server["env"], "WAG_DB": str(built_db)})

    async def main():
        async with _stdio(params) as client:
            tools = (await client.list_tools()).tools
            return len(tools), await _data(client, "list_subjects", {"dataset": "pmdata"})

    n_tools, out = anyio.run(main)
    assert n_tools == 7 and "pmdata:p01" in [s["subject_id"] for s in out["subjects"]]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_http_serves_streamable_http_on_localhost(built_db):
    port = _free_port()
    proc = subprocess.Popen([WAG, "mcp", "--http", "--port", str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True,
                            env=_env(WAG_DB=str(built_db)))
    try:
        deadline = time.monotonic() + 60
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.poll() else "timeout"
            time.sleep(0.3)

        async def main():
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                return await _data(client, "run_sql", {"query": "select 41 + 1 as x"})

        assert anyio.run(main)["rows"] == [{"x": 42}]
    finally:
        proc.terminate()
        proc.wait(30)


def test_stdio_server_survives_a_missing_warehouse(tmp_path):
    async def main():
        async with _stdio(_params(tmp_path / "nope.duckdb")) as client:
            first = await client.call_tool("list_subjects", {})
            second = await client.call_tool("run_sql", {"query": "select 1"})
            return first, second

    first, second = anyio.run(main)
    for res in (first, second):
        assert res.is_error and "no warehouse at" in res.content[0].text
