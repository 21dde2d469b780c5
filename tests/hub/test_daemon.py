"""The warm hub (``paperpilot hub start|stop|status``): a real daemon process on a loopback port.

One daemon serves the whole module, over a copy of the session's indexed hub home; the tests run in
file order and the last ones stop it. No fixed sleeps: every wait polls with a deadline.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.hub import daemon

REPO = Path(__file__).resolve().parents[2]
QUESTION = "What rank does LoRA use by default?"
SECRET_ENV = {"PAPERPILOT_TEST_API_KEY": "sk-daemon-test-secret"}  # every command gets it; the daemon must not


def cli(home: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    code = "import sys; from paperpilot_tui.cli.main import main; sys.exit(main())"
    return subprocess.run([sys.executable, "-c", code, *args], cwd=REPO, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "PAPERPILOT_HOME": str(home), **SECRET_ENV})


def wait_gone(pid: int, deadline_s: float = 20) -> bool:
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        if not daemon.alive(pid):
            return True
        time.sleep(0.05)
    return False


@pytest.fixture(scope="module")
def home(hub_home, tmp_path_factory) -> Path:
    h = tmp_path_factory.mktemp("daemon-home")
    for name in os.listdir(hub_home):
        if name.startswith("hub.sqlite3"):
            shutil.copy2(hub_home / name, h / name)
    return h


@pytest.fixture(scope="module")
def running(home):
    out = cli(home, "hub", "start", timeout=180)
    assert out.returncode == 0, out.stdout + out.stderr
    state, why = daemon.read_state(daemon.state_path(home))
    assert state is not None, why
    yield state
    if daemon.alive(state.pid):
        daemon.stop_pid(state.pid)
    daemon.remove_state(daemon.state_path(home))
    from paperpilot_tui.cli import warm

    warm.stop(home)  # `hub start` starts the warm ask server beside the daemon


@pytest.fixture()
def in_home(home, monkeypatch):
    monkeypatch.setenv("PAPERPILOT_HOME", str(home))
    return home


def _client(**mcp):
    from core.config import load_settings
    from core.tools.hub_client import HubClient

    s = load_settings(use_user_file=False)
    for k, v in mcp.items():
        setattr(s.mcp, k, v)
    return HubClient(s.mcp)


def test_start_prints_where_and_writes_a_private_state_file(home, running):
    path = daemon.state_path(home)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    raw = json.loads(path.read_text())
    assert {"pid", "port", "token", "started"} <= raw.keys() and raw["pid"] == running.pid
    assert daemon.is_daemon(running.pid)
    again = cli(home, "hub", "start")
    assert again.returncode == 0 and f"already running: pid {running.pid}" in again.stdout


def test_the_daemon_gets_no_secret_shaped_environment_variables(running):
    """`hub start` runs with an API-key-shaped variable set; the daemon needs none and gets none."""
    environ = Path(f"/proc/{running.pid}/environ").read_bytes().split(b"\0")
    assert any(v.startswith(b"PAPERPILOT_HOME=") for v in environ)
    assert not any(b"sk-daemon-test-secret" in v or v.startswith(b"PAPERPILOT_TEST_API_KEY=") for v in environ)


def test_requests_without_the_token_get_401(running):
    assert daemon.ping(running, token="") == 401
    assert daemon.ping(running, token="not-the-token") == 401
    assert daemon.ping(running) not in (None, 401)


def test_status_says_the_daemon_runs(home, running):
    out = cli(home, "hub", "status")
    assert out.returncode == 0, out.stderr
    first = out.stdout.splitlines()[0]
    assert first.startswith(f"daemon: running, pid {running.pid}, 127.0.0.1:{running.port}, up ") and "answering" in first
    assert "default: " in out.stdout  # the collection stats are still there


def test_ask_uses_the_daemon_and_says_so(home, running):
    out = cli(home, "ask", "--json", QUESTION)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["hub"] == f"hub (daemon :{running.port})"
    assert any("lora" in s["doc_id"].lower() for s in result["sources"])


def test_a_query_after_an_ingest_sees_the_new_document(in_home, running, tmp_path):
    """ingest writes the database directly; the daemon's cached indexes follow the collection revision."""
    query = "Zorblax quokkafied"  # words only the new document has: its BM25 rank is 1

    async def search():
        async with _client() as hub:
            assert hub.describe == f"hub (daemon :{running.port})"
            return [h.doc_id for h in await hub.search(query, top_k=10)]

    before = asyncio.run(search())  # the daemon's BM25 index and matrix are now built and cached
    assert "zorblax" not in before
    doc = tmp_path / "zorblax.md"
    doc.write_text("# Zorblax adapters\n\nZorblax adapters use a rank of 17, quokkafied.\n")
    out = cli(in_home, "ingest", "--no-embed", str(doc))  # no vectors yet: found by its words
    assert out.returncode == 0, out.stdout + out.stderr
    assert "zorblax" in asyncio.run(search())[:3]  # unembedded, so fused from the lexical leg alone

def test_a_user_connection_is_never_replaced(in_home, running):
    from core.config import MCPConnection

    conns = {"hub": MCPConnection(args=["-m", "core.hub", "serve", "--rerank", "none"])}
    client = _client(connections=conns)
    assert client._daemon() is None  # not the default bundled connection: no substitution


def test_a_daemon_that_does_not_answer_falls_back_to_stdio(in_home, running):
    os.kill(running.pid, signal.SIGSTOP)
    try:
        async def go():
            async with _client() as hub:
                return hub.describe, list(hub.notices), await hub.search("LoRA rank", top_k=1)

        described, notices, hits = asyncio.run(go())
    finally:
        os.kill(running.pid, signal.SIGCONT)
    assert described == "hub (stdio)" and hits
    assert any("did not answer" in n and "stdio" in n for n in notices)
    assert daemon.state_path(in_home).exists()  # a live daemon that is slow is not "stale"


def test_stop_stops_it_and_ask_falls_back_to_stdio(home, running):
    out = cli(home, "hub", "stop")
    assert out.returncode == 0 and f"stopped (pid {running.pid})" in out.stdout
    assert wait_gone(running.pid)
    assert not daemon.state_path(home).exists()
    again = cli(home, "hub", "stop")
    assert again.returncode == 0 and "not running" in again.stdout
    out = cli(home, "ask", "--json", QUESTION)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["hub"] == "hub (stdio)"


# -- stale files: no daemon needed ------------------------------------------------------------------

def _write(path: Path, pid: int, mode: int = 0o600) -> None:
    daemon.write_state(path, daemon.DaemonState(pid=pid, port=1, token="t", started=time.time()))
    os.chmod(path, mode)


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_stale_state_files_are_removed_never_trusted(tmp_path):
    path = daemon.state_path(tmp_path)
    cases = {
        "dead pid": (_dead_pid(), 0o600),
        "pid of another program": (os.getpid(), 0o600),  # this test process is no hub daemon
        "readable by others": (os.getpid(), 0o644),
    }
    for label, (pid, mode) in cases.items():
        _write(path, pid, mode)
        state, why = daemon.find_daemon(tmp_path)
        assert state is None and why, label
        assert not path.exists(), label
    path.write_text("{not json")
    os.chmod(path, 0o600)
    assert daemon.find_daemon(tmp_path)[0] is None and not path.exists()


def test_stale_file_is_cleaned_by_the_client_which_uses_stdio(tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERPILOT_HOME", str(tmp_path))
    _write(daemon.state_path(tmp_path), _dead_pid())
    client = _client()
    assert client._daemon() is None
    assert not daemon.state_path(tmp_path).exists()
    assert any("stale" in n for n in client.notices)


async def test_the_daemon_app_checks_the_token_and_caps_requests_in_flight():
    """The warm hub has the same request cap as `hub serve --transport http`: a request past
    ``limits.hub_connections`` gets a one-line 503 (before, the daemon had only its token check)."""
    import asyncio

    from core.hub.daemon import daemon_app

    release = asyncio.Event()

    async def mcp_app(scope, receive, send):  # stands in for the MCP app: holds its request open
        await release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    app = daemon_app(mcp_app, "tok", connections=1)

    async def request(token: str) -> tuple[int, bytes]:
        sent: list[dict] = []

        async def send(message: dict) -> None:
            sent.append(message)

        async def receive() -> dict:
            return {"type": "http.request", "body": b"", "more_body": False}

        scope = {"type": "http", "headers": [(b"authorization", f"Bearer {token}".encode())]}
        await app(scope, receive, send)
        return sent[0]["status"], b"".join(m.get("body", b"") for m in sent[1:])

    held = asyncio.create_task(request("tok"))
    await asyncio.sleep(0.05)
    assert (await request("wrong"))[0] == 401
    status, body = await request("tok")
    assert status == 503 and b"limits.hub_connections" in body
    release.set()
    assert await held == (200, b"ok")
