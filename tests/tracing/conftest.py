"""The CLI tests' fixtures: a private data home (tests.support.cli.home)."""

from tests.support.cli import home  # noqa: F401 - a fixture, used by name
