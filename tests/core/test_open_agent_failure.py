"""A hub that cannot start must not leave the encoder still loading in a thread: a process that
exits while a thread imports torch aborts (SIGABRT) instead of exiting with its own code."""

from __future__ import annotations

import threading

import pytest

from core.agent import open_agent
from core.brains.base import BackendUnavailable
from core.config import load_settings


async def test_a_hub_that_cannot_start_leaves_no_encoder_thread_loading(tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERPILOT_HOME", str(tmp_path))
    cfg = tmp_path / "settings.yaml"
    cfg.write_text("mcp:\n  connections:\n    hub:\n      transport: stdio\n      command: /nonexistent/server\n")
    settings = load_settings(cfg)
    with pytest.raises(BackendUnavailable):
        async with open_agent(settings):
            pass
    assert not [t for t in threading.enumerate() if t.name == "encoder-warm" and t.is_alive()]
