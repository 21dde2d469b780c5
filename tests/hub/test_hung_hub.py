"""A hub that is alive but hung (SIGSTOP) ends a turn at ``mcp.call_timeout``, not minutes later (issue 26).

The first search of a session used to get a 600 s allowance meant for a fresh index, so a hung
hub held ``ask`` for ten minutes. Now only a hub that reports it is indexing (``hub_status``) gets
more time; a stopped hub answers nothing, so the call ends at its deadline with one line naming it,
and ``ask`` exits 3. Real hub processes, over stdio (the child ``ask`` starts) and HTTP.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

from core.hub.auth import read_token, token_path

from tests.hub.helpers import REPO, server_env
from tests.hub.test_deadlines import SLOW, free_port, stop, wait_port

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SIGSTOP and /proc")

CALL_TIMEOUT = 3


def _ask(home: Path, config: Path, question: str, env: dict[str, str]) -> subprocess.Popen:
    code = "import sys; from paperpilot_tui.cli.main import main; sys.exit(main())"
    return subprocess.Popen([sys.executable, "-c", code, "ask", "--config", str(config), "--llm", "offline", question],
                            cwd=REPO, env=server_env(home) | env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)


def _stdio_hub_of(ask: subprocess.Popen) -> int | None:
    try:
        for kid in psutil.Process(ask.pid).children(recursive=True):
            if "core.hub" in " ".join(kid.cmdline()):
                return kid.pid
    except psutil.Error:
        return None
    return None


def _wait_mark(mark: Path, ask: subprocess.Popen, deadline_s: float = 120) -> None:
    deadline = time.monotonic() + deadline_s
    while not mark.exists():
        assert ask.poll() is None, ask.stderr.read()
        assert time.monotonic() < deadline, "the query never reached the hub"
        time.sleep(0.05)


def _finish(ask: subprocess.Popen, stopped_at: float) -> tuple[int, str, float]:
    """(exit code, stderr, seconds from the stop to ask's error line). The line is the turn's end;
    the process's own teardown afterwards is not the hung hub's doing."""
    said: list[float] = []
    lines: list[str] = []

    def read() -> None:
        for line in ask.stderr:
            lines.append(line)
            if "paperpilot: warning:" not in line and not said:
                said.append(time.monotonic())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        ask.wait(timeout=CALL_TIMEOUT + 5 + 60)  # a bound that fails fast, not after 600 s
    except subprocess.TimeoutExpired:
        os.killpg(ask.pid, signal.SIGKILL)
        raise AssertionError("ask was still waiting on the hung hub") from None
    reader.join(5)
    return ask.returncode, "".join(lines), (said[0] if said else float("inf")) - stopped_at


def _one_line_naming_the_deadline(code: int, err: str, elapsed: float) -> None:
    lines = [ln for ln in err.splitlines() if ln.strip() and "warning:" not in ln]
    assert code == 3, (code, err)
    assert "Traceback" not in err and len(lines) == 1, err
    assert f"within {CALL_TIMEOUT} s (mcp.call_timeout)" in lines[0], lines[0]
    assert elapsed <= CALL_TIMEOUT + 5, elapsed


def test_stopped_stdio_hub_ends_the_turn_at_the_call_deadline(sqlite_hub_home, tmp_path):
    home, mark = tmp_path / "home", tmp_path / "in-rerank"
    home.mkdir(mode=0o700)
    config = tmp_path / "settings.yaml"
    config.write_text(f"mcp:\n  use_daemon: false\n  call_timeout: {CALL_TIMEOUT}\n  connections:\n    hub:\n"
                      f"      args: [-m, core.hub, serve, --db, '{sqlite_hub_home / 'hub.sqlite3'}']\n")
    env = {"PAPERPILOT_HUB_RERANK": SLOW, "SLOW_RERANK_MARK": str(mark), "SLOW_RERANK_S": "2"}
    ask = _ask(home, config, "What rank does LoRA use?", env)
    hub = None
    try:
        _wait_mark(mark, ask)  # the first search of the session is in the hub
        hub = _stdio_hub_of(ask)
        assert hub is not None, "no stdio hub child"
        os.kill(hub, signal.SIGSTOP)
        code, err, elapsed = _finish(ask, time.monotonic())
    finally:
        if hub is not None:
            try:
                os.kill(hub, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if ask.poll() is None:
            os.killpg(ask.pid, signal.SIGKILL)
    _one_line_naming_the_deadline(code, err, elapsed)


def test_stopped_http_hub_ends_the_turn_at_the_call_deadline(sqlite_hub_home, tmp_path):
    port, mark = free_port(), tmp_path / "in-rerank"
    env = server_env(sqlite_hub_home) | {"SLOW_RERANK_MARK": str(mark), "SLOW_RERANK_S": "2"}
    hub = subprocess.Popen([sys.executable, "-m", "core.hub", "serve", "--transport", "http", "--port", str(port),
                            "--rerank", SLOW], cwd=REPO, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    config = tmp_path / "settings.yaml"
    config.write_text(f"mcp:\n  connection: remote\n  call_timeout: {CALL_TIMEOUT}\n  connections:\n"
                      f"    remote: {{transport: streamable_http, url: 'http://127.0.0.1:{port}/mcp'}}\n")
    try:
        wait_port(port, hub)
        token = read_token(token_path(sqlite_hub_home))  # the hub's data dir is not the asker's
        ask = _ask(home, config, "What rank does LoRA use?", {"PAPERPILOT_HUB_TOKEN": token})
        try:
            _wait_mark(mark, ask)
            hub.send_signal(signal.SIGSTOP)
            code, err, elapsed = _finish(ask, time.monotonic())
        finally:
            if ask.poll() is None:
                os.killpg(ask.pid, signal.SIGKILL)
    finally:
        stop(hub)
    _one_line_naming_the_deadline(code, err, elapsed)
