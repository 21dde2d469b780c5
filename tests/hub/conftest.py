"""Shared fixtures: one indexed hub home (bundled notes + embeddings), built once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.hub.service import Hub


@pytest.fixture(scope="session")
def hub_home(tmp_path_factory) -> Path:
    """A PAPERPILOT_HOME whose hub.sqlite3 already holds the bundled corpus with vectors."""
    home = tmp_path_factory.mktemp("hub-home")
    hub = Hub(home / "hub.sqlite3")
    hub.start(background=False)
    hub.wait_ready()
    assert hub.store.stats("default")["embedded_chunks"] > 0
    hub.store.close()
    return home


@pytest.fixture(scope="session")
def hub(hub_home) -> Hub:
    """An in-process hub over the shared home (no sync: the home is already indexed)."""
    h = Hub(hub_home / "hub.sqlite3", sync=False)
    h.start(background=False)
    return h
