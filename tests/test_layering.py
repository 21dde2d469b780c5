"""The import-linter contracts and ruff, both configured in pyproject.toml, pass inside the suite."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=REPO, capture_output=True, text=True, timeout=300)


def test_import_contracts_are_kept():
    out = _run("-c", "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())",
               "--no-logo", "--no-cache")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 broken" in out.stdout


def test_ruff_finds_nothing():
    out = _run("-m", "ruff", "check", "--no-cache", "--output-format", "concise", ".")
    assert out.returncode == 0, out.stdout + out.stderr
