"""Start-up path hygiene: `paperpilot --help`, a subcommand's --help and importing the app load none
of the heavy libraries (tests/support/heavy.py; the ask path itself: tests/core/test_no_torch_on_ask_path.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.support.heavy import STARTUP_HEAVY

PROBE = """
import contextlib, io, json, sys
{code}
print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {heavy!r})))
"""
CLI = """from paperpilot_tui.cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main({argv!r})
    except SystemExit:
        pass"""


def loaded_after(code: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", PROBE.format(code=code, heavy=set(STARTUP_HEAVY))],
                         capture_output=True, text=True, timeout=120, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("code", [CLI.format(argv=["--help"]), CLI.format(argv=["ask", "--help"]),
                                  "import paperpilot_tui.app"], ids=["--help", "ask --help", "import app"])
def test_start_up_paths_import_nothing_heavy(code):
    assert loaded_after(code) == []


def test_help_explains_commands():
    out = subprocess.run([sys.executable, "-m", "paperpilot_tui.cli.main", "--help"], capture_output=True,
                         text=True, timeout=60, check=True).stdout
    assert "ask" in out and "PAPERPILOT_HOME" in out
