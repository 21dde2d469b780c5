"""The memory tests' fixtures: a private data home (tests.support.cli.home), and an indexed hub
database that ``paperpilot ask`` subprocesses share (indexed once; each test gets its own home)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import home  # noqa: F401 - a fixture, used by name


@pytest.fixture(scope="session")
def hub_db(tmp_path_factory) -> Path:
    """A hub.sqlite3 already holding the bundled corpus with vectors (the hub then starts in seconds)."""
    from core.hub.service import Hub

    db = tmp_path_factory.mktemp("memory-hub") / "hub.sqlite3"
    hub = Hub(db)
    hub.start(background=False)
    hub.wait_ready()
    assert hub.store.stats("default")["embedded_chunks"] > 0
    hub.store.close()
    return db
