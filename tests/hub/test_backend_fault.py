"""A hub whose store fails mid-run is an error, never "no evidence" (issue 26), and a stdio hub whose
client closes stdin exits quietly.

The hub (a real HTTP server process) is serving; then its database loses the table every search
reads (another connection renames it), so the hub's next query fails inside SQLite. ``ask`` used to
turn that tool error into an empty search and answer "The knowledge base holds no evidence" with
exit 0; now the hub marks it as its backend's fault and ``ask`` fails with one line, exit 3.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys

from core.hub.auth import read_token, token_path
from tests.hub.helpers import REPO, server_env
from tests.hub.test_deadlines import free_port, stop, wait_port


def _copy_db(src, dst) -> None:
    with sqlite3.connect(src) as a, sqlite3.connect(dst) as b:
        a.backup(b)


def test_a_store_that_fails_mid_run_fails_ask_with_one_line(sqlite_hub_home, tmp_path):
    db = tmp_path / "hub.sqlite3"
    _copy_db(sqlite_hub_home / "hub.sqlite3", db)
    port = free_port()
    hub = subprocess.Popen([sys.executable, "-m", "core.hub", "serve", "--transport", "http", "--port", str(port),
                            "--db", str(db)], cwd=REPO, env=server_env(tmp_path), stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    config = tmp_path / "settings.yaml"
    config.write_text("agent:\n  router: rules\n  critic: rules\nmemory:\n  enabled: false\n"
                      "mcp:\n  connection: remote\n  call_timeout: 60\n  connections:\n"
                      f"    remote: {{transport: streamable_http, url: 'http://127.0.0.1:{port}/mcp'}}\n")
    try:
        wait_port(port, hub)
        with sqlite3.connect(db, timeout=60) as conn:  # the backend breaks under the running hub
            conn.execute("ALTER TABLE chunks RENAME TO chunks_lost")
        token = read_token(token_path(tmp_path))  # the hub's data dir is not the asker's
        ask = subprocess.run([sys.executable, "-m", "paperpilot_tui.cli.main", "ask", "--config", str(config),
                              "--llm", "offline", "What rank does LoRA use?"], cwd=REPO,
                             env=server_env(home) | {"PAPERPILOT_HUB_TOKEN": token},
                             capture_output=True, text=True, timeout=300)
    finally:
        stop(hub)
    lines = [ln for ln in ask.stderr.splitlines() if ln.strip() and "warning:" not in ln]
    assert ask.returncode == 3, (ask.returncode, ask.stdout, ask.stderr)
    assert "no evidence" not in ask.stdout
    assert "Traceback" not in ask.stderr and len(lines) == 1, ask.stderr
    assert "backend failed" in lines[0] and "chunks" in lines[0], lines[0]


def test_stdio_hub_serve_exits_quietly_when_its_client_closes_stdin(tmp_path):
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    init = ('{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", '
            '"capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}\n')
    for stdin in ("", init):  # closed at once, and after a request
        run = subprocess.run([sys.executable, "-m", "paperpilot_tui.cli.main", "hub", "serve",
                              "--db", str(tmp_path / "hub.sqlite3")], input=stdin, cwd=REPO,
                             env=server_env(home) | {"PAPERPILOT_HUB_SYNC": "0"}, capture_output=True, text=True,
                             timeout=120)
        assert run.returncode == 0, run.stderr
        assert "Traceback" not in run.stderr and "ValueError" not in run.stderr, run.stderr
