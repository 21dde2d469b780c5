"""Research runs against the real bundled hub (an MCP stdio process serving the pre-indexed ``hub_db``),
each test in a data home of its own so sessions start fresh."""

from __future__ import annotations

import pytest

from core.config import load_settings

TOPIC = "Parameter-efficient fine-tuning and alignment of large language models"


@pytest.fixture
def research_home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    monkeypatch.setenv("PAPERPILOT_HOME", str(home))
    return home


@pytest.fixture
def settings(research_home, hub_db):
    s = load_settings(use_user_file=False)
    s.agent.router, s.agent.critic = "rules", "rules"
    s.memory.enabled = False
    s.mcp.connections["hub"].args = ["-m", "core.hub", "serve", "--db", str(hub_db)]
    return s
