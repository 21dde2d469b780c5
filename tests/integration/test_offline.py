"""Offline means offline: with an API key and a base URL in the environment, ``paperpilot --offline``
and ``llm.provider: offline`` open no connection for anything, document summaries included; the
configured brain (not the key) decides. The "cloud" is a real TCP listener on loopback that records
every connection and answers garbage.
"""

from __future__ import annotations

import functools
import json
import socket
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import pytest

from tests.support.cli import cli


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A private, empty PAPERPILOT_HOME."""
    monkeypatch.setenv("PAPERPILOT_HOME", str(tmp_path / "home"))
    return tmp_path / "home"

REPO = Path(__file__).resolve().parents[2]
NOTE = "# Adapters\n\n## Abstract\n\nLoRA trains a low-rank update and keeps the base model frozen.\n"


class Listener:
    """A loopback TCP server: counts connections, answers each with a malformed HTTP reply."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            with conn:
                conn.settimeout(2)
                try:
                    conn.recv(65536)
                    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\ngarbage")
                except OSError:
                    pass

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def cloud(monkeypatch):
    server = Listener()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789abcdef")
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{server.port}/v1")
    yield server
    server.close()


def ingest(capsys, tmp_path, *before: str, provider: str | None = None) -> tuple[int, str, str]:
    doc = tmp_path / "note.md"
    doc.write_text(NOTE, encoding="utf-8")
    cfg = tmp_path / "settings.yaml"
    cfg.write_text("llm:\n  retries: 0\n  timeout: 5\n" + (f"  provider: {provider}\n" if provider else ""),
                   encoding="utf-8")
    return cli(capsys, "--config", str(cfg), *before, "ingest", str(doc), "--no-embed")


def test_offline_flag_makes_no_connection_with_a_key_set(home, capsys, tmp_path, cloud):
    code, out, err = ingest(capsys, tmp_path, "--offline")
    assert code == 0 and "1 added" in out and "LLM summaries" not in err, err
    assert cloud.connections == 0


def test_offline_flag_wins_over_an_explicit_openai_provider(home, capsys, tmp_path, cloud):
    code, _, err = ingest(capsys, tmp_path, "--offline", provider="openai")
    assert code == 0 and cloud.connections == 0, err


def test_provider_offline_in_settings_makes_no_connection(home, capsys, tmp_path, cloud):
    code, out, err = ingest(capsys, tmp_path, provider="offline")
    assert code == 0 and "1 added" in out and cloud.connections == 0, err


def test_global_llm_flag_reaches_subcommands(home, capsys, tmp_path, cloud):
    code, _, err = ingest(capsys, tmp_path, "--llm", "offline", provider="openai")
    assert code == 0 and cloud.connections == 0, err


def test_provider_openai_uses_the_llm_and_falls_back_with_one_line(home, capsys, tmp_path, cloud):
    code, out, err = ingest(capsys, tmp_path, provider="openai")
    assert code == 0 and "1 added" in out and cloud.connections >= 1
    [line] = [x for x in err.splitlines() if "LLM summaries failed" in x]
    assert "offline summaries kept" in line and "Traceback" not in err



def test_offline_ask_makes_no_connection_with_a_key_set(cloud):
    """A whole turn as a user runs it (a subprocess in the suite's indexed home; router, the hub over
    MCP, critic, memory, session title) with ``--offline``, even after ``ask --llm openai``: nothing
    reaches the listener."""
    run = functools.partial(subprocess.run, capture_output=True, text=True, timeout=300, cwd=REPO)
    argv = [sys.executable, "-m", "paperpilot_tui.cli.main"]
    sid = f"offline-{uuid.uuid4().hex[:8]}"
    out = run([*argv, "--offline", "ask", "--llm", "openai", "--json", "--session", sid,
               "What rank does LoRA use by default?"])
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["llm_calls"] == 0 and cloud.connections == 0
    sessions = {s["id"]: s for s in json.loads(run([*argv, "sessions", "list", "--json"]).stdout)}
    assert sessions[sid]["title"] == "What rank does LoRA use by default?"  # the question, not an LLM's
