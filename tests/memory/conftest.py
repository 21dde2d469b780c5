"""The memory tests' fixtures: a private data home (tests.support.cli.home); the indexed hub database
that ``paperpilot ask`` subprocesses share is ``hub_db`` in tests/conftest.py."""

from __future__ import annotations

from tests.support.cli import home  # noqa: F401 - a fixture, used by name
