"""Deadlines on remote MCP calls, against real servers on loopback (issue 17).

A per-call deadline ends a call to a server that never answers, within the deadline, with one line,
and really ends it (the server's handler is cancelled too); a turn's deadline stops the graph; an
HTTP hub killed mid-query fails ``ask`` at once with one line and exit code 3; a stdio hub killed
mid-call is reconnected once and the call answers.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.config import MCPConnection, MCPSettings, Settings
from core.errors import BackendUnavailable
from core.hub import auth
from core.tools.hub_client import HubClient
from tests.hub.helpers import REPO, server_env

SLEEPY = REPO / "tests" / "stubs" / "sleepy_server.py"
SLOW = "tests.stubs.slow_rerank:rerank"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, proc: subprocess.Popen, deadline_s: float = 60) -> None:
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"server exited with {proc.returncode}"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"nothing listens on {port}")


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait(10)


@pytest.fixture
def sleepy():
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(SLEEPY), str(port)], cwd=REPO, env=server_env(REPO),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_port(port, proc)
        yield MCPConnection(transport="streamable_http", url=f"http://127.0.0.1:{port}/mcp")
    finally:
        stop(proc)


def _settings(conn: MCPConnection, call_timeout: float) -> MCPSettings:
    return MCPSettings(connection="sleepy", call_timeout=call_timeout, connections={"sleepy": conn})


async def test_call_past_its_deadline_ends_within_it_with_one_line(sleepy, capfd):
    async with HubClient(_settings(sleepy, 1.5)) as client:
        t0 = time.monotonic()
        with pytest.raises(BackendUnavailable) as err:
            await client.call("query_knowledge_hub", {"query": "q"})
        elapsed = time.monotonic() - t0
        # before: a timed-out call reconnected and waited a second deadline (> 3 s)
        assert elapsed < 1.5 + 1.0, elapsed
        msg = str(err.value)
        assert "\n" not in msg and "did not answer query_knowledge_hub within 1.5 s" in msg
        assert (await client.call("ping", {})).text == "pong"  # a fresh session answers
        assert client.reconnects == 1 and "timed out" in client.notices[-1]
        # the timed-out call was cancelled on the server too, not left sleeping
        assert (await client.call("inflight", {})).text == "0"
    assert "Traceback" not in capfd.readouterr().err


async def test_turn_deadline_stops_the_turn_with_one_line(sleepy):
    from core.agent import open_agent
    from core.brains.offline import OfflineBrain
    from core.events import TurnFailed

    settings = Settings()
    settings.mcp = _settings(sleepy, 60)
    settings.agent.turn_deadline = 1.5
    async with open_agent(settings, brain=OfflineBrain(), persist=False) as agent:
        t0 = time.monotonic()
        events = [ev async for ev in agent.run_turn("What rank does LoRA use?")]
        elapsed = time.monotonic() - t0
    last = events[-1]
    assert isinstance(last, TurnFailed) and last.category == "backend", last
    assert "agent.turn_deadline (1.5 s)" in last.error and "\n" not in last.error
    assert elapsed < 1.5 + 1.5, elapsed


def _hub_child(parent: int) -> int | None:
    import psutil

    try:
        kids = psutil.Process(parent).children()
    except psutil.NoSuchProcess:
        return None
    for kid in kids:
        try:
            if "core.hub" in " ".join(kid.cmdline()):
                return kid.pid
        except psutil.Error:
            continue
    return None


async def _wait_file(path: Path, deadline_s: float) -> None:
    deadline = time.monotonic() + deadline_s
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        await asyncio.sleep(0.05)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds the server pid through /proc")
async def test_stdio_hub_killed_mid_call_reconnects_once(hub_home, tmp_path, monkeypatch):
    mark = tmp_path / "in-rerank"
    env = {"PAPERPILOT_HOME": str(hub_home), "PAPERPILOT_HUB_RERANK": SLOW, "SLOW_RERANK_MARK": str(mark),
           "SLOW_RERANK_S": "1"}
    conn = MCPConnection(args=["-m", "core.hub", "serve"], cwd=str(REPO), env=env)
    settings = MCPSettings(connection="hub", call_timeout=60, use_daemon=False, connections={"hub": conn})
    async with HubClient(settings) as client:
        call = asyncio.create_task(client.search("LoRA rank", top_k=2))
        await _wait_file(mark, 60)
        mark.unlink()
        os.kill(_hub_child(os.getpid()), signal.SIGKILL)
        hits = await asyncio.wait_for(call, 60)
        assert hits and client.reconnects == 1
        assert len(client.notices) == 1 and "reconnected" in client.notices[0]


def _ask(home: Path, config: Path, *args: str) -> subprocess.Popen:
    code = "import sys; from paperpilot_tui.cli.main import main; sys.exit(main())"
    return subprocess.Popen([sys.executable, "-c", code, "ask", "--config", str(config), "--llm", "offline", *args],
                            cwd=REPO, env={**server_env(home)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SIGKILL")
def test_http_hub_killed_mid_query_fails_ask_at_once_with_one_line(hub_home, tmp_path):
    port, mark = free_port(), tmp_path / "in-rerank"
    env = server_env(hub_home) | {"SLOW_RERANK_MARK": str(mark), "SLOW_RERANK_S": "60"}
    hub = subprocess.Popen([sys.executable, "-m", "core.hub", "serve", "--transport", "http", "--port", str(port),
                            "--rerank", SLOW], cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    config = tmp_path / "settings.yaml"
    token = auth.ensure_token(hub_home)  # the hub's; this ask runs on another data dir
    config.write_text(f"mcp:\n  connection: remote\n  call_timeout: 30\n  token: {token}\n  connections:\n"
                      f"    remote: {{transport: streamable_http, url: 'http://127.0.0.1:{port}/mcp'}}\n")
    try:
        wait_port(port, hub)
        ask = _ask(home, config, "What rank does LoRA use?")
        deadline = time.monotonic() + 60
        while not mark.exists():
            assert time.monotonic() < deadline and ask.poll() is None, "the query never reached the hub"
            time.sleep(0.05)
        hub.kill()
        killed = time.monotonic()
        try:
            out, err = ask.communicate(timeout=30 + 5)  # the per-call deadline, and 5 s
        except subprocess.TimeoutExpired:
            ask.kill()
            raise AssertionError("ask hung after the hub was killed") from None
        elapsed = time.monotonic() - killed
    finally:
        stop(hub)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert ask.returncode == 3, (ask.returncode, err)
    assert "Traceback" not in err and len(lines) == 1, err
    assert "unreachable: connection lost mid-call" in lines[0]
    assert elapsed < 10, elapsed  # at once, not at the deadline
