"""Run ``paperpilot`` subcommands in-process against a private data home."""

from __future__ import annotations

import pytest

from paperpilot_tui.cli.main import main


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERPILOT_HOME", str(tmp_path))
    return tmp_path


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of one command."""
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err
