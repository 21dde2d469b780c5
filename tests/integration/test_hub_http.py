"""The bundled hub served over streamable HTTP (``paperpilot hub serve --transport http``) and the
agent reaching it through a ``url`` connection instead of starting it over stdio."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time

import pytest

from core.brains.base import BackendUnavailable
from core.config import MCPConnection
from tests.integration.helpers import ask_all, settings


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def http_hub(tmp_path_factory):
    port = _free_port()
    home = tmp_path_factory.mktemp("http-hub-home")
    log = (home / "server.log").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "core.hub", "serve", "--transport", "http", "--port", str(port)],
                            env={**os.environ, "PAPERPILOT_HOME": str(home)}, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert proc.poll() is None, (home / "server.log").read_text()
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.2)
    else:
        proc.kill()
        pytest.fail("hub HTTP server did not start listening")
    yield f"http://127.0.0.1:{port}/mcp", home
    proc.terminate()
    proc.wait(timeout=20)
    log.close()


def test_agent_answers_through_the_http_hub(http_hub, monkeypatch):
    url, home = http_hub
    monkeypatch.setenv("PAPERPILOT_HOME", str(home))  # the hub's own data dir: its token is found there
    s = settings()
    s.mcp.connections["hub-http"] = MCPConnection(transport="streamable_http", url=url)
    s.mcp.connection = "hub-http"
    [turn] = asyncio.run(ask_all(["What rank does LoRA use by default?"], s))
    r = turn.result
    assert r.strategy == "simple" and r.sources
    assert {src.chunk_id for src in r.sources} <= turn.retrieved_ids()
    assert any("lora" in src.doc_id.lower() for src in r.sources)


def test_unreachable_http_hub_is_one_clear_failure():
    s = settings()
    s.mcp.connections["gone"] = MCPConnection(transport="streamable_http", url=f"http://127.0.0.1:{_free_port()}/mcp")
    s.mcp.connection = "gone"
    with pytest.raises(BackendUnavailable) as err:  # open_agent fails fast, before any turn
        asyncio.run(ask_all(["What rank does LoRA use by default?"], s))
    line = str(err.value)
    assert line.startswith("MCP server gone (http://127.0.0.1:") and "unreachable" in line and "\n" not in line
