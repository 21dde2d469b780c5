"""A stdio server's stderr (issue 26): the log file it goes to is private, and a server that cannot start
gives one line, its own reason folded into the client's error, not two.

Real server processes: the upstream stub (started through a small wrapper that speaks on stderr first),
a process that says why it cannot start and exits, and ``paperpilot ask`` over a corrupt ``hub.sqlite3``.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys

import pytest

from core.config import MCPConnection, MCPSettings
from core.errors import BackendUnavailable, UnsafePath
from core.tools.hub_client import HubClient
from tests.hub.helpers import REPO, STUB, server_env

SAYS_THEN_SERVES = ("import runpy, sys; print('stub: warming up', file=sys.stderr, flush=True); "
                    f"runpy.run_path({str(STUB)!r}, run_name='__main__')")
SAYS_THEN_EXITS = ("import sys; print('stub: reading settings', file=sys.stderr); "
                   "print('stub: /x/store.db is damaged; move it aside', file=sys.stderr); sys.exit(2)")


def _settings(code: str, **kw) -> MCPSettings:
    conn = MCPConnection(args=["-c", code], cwd=str(REPO), env={"PYTHONPATH": str(REPO)})
    return MCPSettings(connection="stub", connections={"stub": conn}, use_daemon=False, connect_timeout=60, **kw)


@pytest.fixture
def home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    monkeypatch.setenv("PAPERPILOT_HOME", str(home))
    return home


async def test_server_log_is_created_private_in_the_data_dir(home):
    old = os.umask(0o022)
    try:
        async with HubClient(_settings(SAYS_THEN_SERVES, server_log="hub-stderr.log")) as client:
            assert (await client.list_collections()).text
    finally:
        os.umask(old)
    log = home / "hub-stderr.log"
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    assert "stub: warming up" in log.read_text()


async def test_server_log_naming_a_directory_is_refused_untouched(home, tmp_path):
    folder = tmp_path / "logs"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    with pytest.raises(UnsafePath) as err:
        async with HubClient(_settings(SAYS_THEN_SERVES, server_log=str(folder))):
            pass
    assert "mcp.server_log" in str(err.value) and len(str(err.value).splitlines()) == 1
    assert stat.S_IMODE(folder.stat().st_mode) == 0o755


async def test_what_a_server_says_while_starting_still_reaches_the_terminal(home, capsys):
    async with HubClient(_settings(SAYS_THEN_SERVES)) as client:
        assert (await client.list_collections()).text
    assert "stub: warming up" in capsys.readouterr().err


async def test_a_server_that_cannot_start_gives_its_reason_in_the_one_error_line(home, capsys):
    with pytest.raises(BackendUnavailable) as err:
        async with HubClient(_settings(SAYS_THEN_EXITS)):
            pass
    line = str(err.value)
    assert line == "MCP server stub (stdio) did not start: stub: /x/store.db is damaged; move it aside", line
    said = capsys.readouterr().err
    assert "stub: reading settings" in said and "damaged" not in said  # earlier lines as before; the reason once


def test_ask_over_a_corrupt_hub_database_prints_one_line_naming_the_file(tmp_path):
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    db = home / "hub.sqlite3"
    db.write_bytes(b"not a database, " * 512)
    run = subprocess.run([sys.executable, "-m", "paperpilot_tui.cli.main", "ask", "--llm", "offline",
                          "What is LoRA?"], cwd=REPO, env=server_env(home) | {"PAPERPILOT_HUB_SYNC": "0"},
                         capture_output=True, text=True, timeout=300)
    lines = [ln for ln in run.stderr.splitlines() if ln.strip() and "warning:" not in ln]
    assert run.returncode == 3, (run.returncode, run.stderr)
    assert "Traceback" not in run.stderr and len(lines) == 1, run.stderr
    assert str(db) in lines[0] and "move it aside" in lines[0] and "did not start" in lines[0], lines[0]
