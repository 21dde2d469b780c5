"""A failed turn is recorded in its session, and kept out of the history the brains see (issue 26).

Real processes: an HTTP hub serving the indexed corpus is killed while ``ask --session S`` waits on
its search, so the turn fails (exit 3). ``sessions show S --json`` then has the question answered
by a failure record carrying the one line ``ask`` printed, never a dangling question. A hub started
again answers the next ``ask`` in the same session, whose checkpointed history alternates question
and answer, and whose turns (what a follow-up is resolved against) hold only the answered one.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.hub import auth
from tests.hub.helpers import REPO, server_env
from tests.hub.test_deadlines import SLOW, free_port, stop, wait_port

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SIGKILL")

SESSION = "failed-turn"


def _hub(hub_home: Path, port: int, env: dict[str, str] | None = None) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "core.hub", "serve", "--transport", "http", "--port", str(port),
                             "--rerank", SLOW], cwd=REPO, env=server_env(hub_home) | (env or {}),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _cli(home: Path, config: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "paperpilot_tui.cli.main", *args[:1], "--config", str(config),
                             *args[1:]], cwd=REPO, env=server_env(home), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _show(home: Path, config: Path) -> dict:
    run = _cli(home, config, "sessions", "show", SESSION, "--json")
    out, err = run.communicate(timeout=120)
    assert run.returncode == 0, err
    return json.loads(out)


def test_a_turn_failed_by_a_killed_hub_is_recorded_and_kept_out_of_the_history(hub_db, tmp_path):
    hub_home = hub_db.parent
    port, mark = free_port(), tmp_path / "in-rerank"
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    config = tmp_path / "settings.yaml"
    token = auth.ensure_token(hub_home)  # the hub's; this ask runs on another data dir
    config.write_text("agent:\n  router: rules\n  critic: rules\nmemory:\n  enabled: false\n"
                      f"mcp:\n  connection: remote\n  call_timeout: 30\n  token: {token}\n  connections:\n"
                      f"    remote: {{transport: streamable_http, url: 'http://127.0.0.1:{port}/mcp'}}\n")
    first = "What rank does LoRA use?"
    hub = _hub(hub_home, port, {"SLOW_RERANK_MARK": str(mark), "SLOW_RERANK_S": "60"})
    try:
        wait_port(port, hub)
        ask = _cli(home, config, "ask", "--llm", "offline", "--session", SESSION, first)
        deadline = time.monotonic() + 120
        while not mark.exists():
            assert time.monotonic() < deadline and ask.poll() is None, "the query never reached the hub"
            time.sleep(0.05)
        hub.kill()
        _, err = ask.communicate(timeout=60)
    finally:
        stop(hub)
    error = [ln for ln in err.splitlines() if ln.strip() and "warning:" not in ln]
    assert ask.returncode == 3 and len(error) == 1, (ask.returncode, err)

    shown = _show(home, config)
    assert [m["role"] for m in shown["messages"]] == ["user", "assistant"], shown
    failed = shown["messages"][1]
    assert shown["messages"][0]["content"] == first
    assert failed["failed"] is True and failed["category"] == "backend", failed
    assert failed["error"] and failed["error"] in error[0], (failed, error)  # the line ask printed
    assert shown["turn_count"] == 1

    text = _cli(home, config, "sessions", "show", SESSION)
    out, _ = text.communicate(timeout=120)
    assert f"✗ failed: {failed['error']}" in out, out

    second = "What is QLoRA?"
    hub = _hub(hub_home, port, {"SLOW_RERANK_S": "0"})
    try:
        wait_port(port, hub)
        ask = _cli(home, config, "ask", "--llm", "offline", "--json", "--session", SESSION, second)
        out, err = ask.communicate(timeout=300)
    finally:
        stop(hub)
    assert ask.returncode == 0, err
    assert json.loads(out)["final_answer"]

    shown = _show(home, config)
    roles = [m["role"] for m in shown["messages"]]
    assert roles == ["user", "assistant", "user", "assistant"], shown  # no question left unanswered
    assert shown["messages"][1]["failed"] is True and not shown["messages"][3].get("failed"), shown
    assert shown["turn_count"] == 2

    from core.memory.checkpoints import read_messages
    from core.memory.history import turns_from_messages

    messages = asyncio.run(read_messages(home / "checkpoints.sqlite3", SESSION))
    assert [t.question for t in turns_from_messages(messages, 10)] == [second]  # the brains' history
