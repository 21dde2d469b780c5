"""The hub child gets only the environment it needs (issue 17 point 6): no API keys or tokens
from the parent unless the connection passes them on explicitly."""

from __future__ import annotations

from core.tools.mcp_session import child_env


def test_secrets_stay_out_of_a_stdio_servers_environment(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-live-secret")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_secret")
    monkeypatch.setenv("MY_DB_PASSWORD", "hunter2")
    monkeypatch.setenv("PAPERPILOT_HOME", "/tmp/x")
    env = child_env({"RAG_TOKEN": "given-on-purpose"})
    assert "OPENAI_API_KEY" not in env and "GITHUB_TOKEN" not in env and "MY_DB_PASSWORD" not in env
    assert env["PAPERPILOT_HOME"] == "/tmp/x" and env["PATH"]
    assert env["RAG_TOKEN"] == "given-on-purpose"
