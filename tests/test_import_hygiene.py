"""Start-up path hygiene: `paperpilot --help` (and each subcommand's --help) imports no heavy stack."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("torch", "transformers", "sentence_transformers", "peft", "trl", "langgraph", "langchain_openai")

PROBE = """
import json, sys
from paperpilot_tui.cli.main import main
try:
    main({argv!r})
except SystemExit:
    pass
print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {heavy!r})))
"""


def loaded_after(argv: list[str]) -> list[str]:
    code = PROBE.format(argv=argv, heavy=set(HEAVY))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_help_imports_nothing_heavy():
    assert loaded_after(["--help"]) == []


def test_subcommand_help_imports_nothing_heavy():
    assert loaded_after(["ask", "--help"]) == []


def test_help_explains_commands():
    out = subprocess.run([sys.executable, "-m", "paperpilot_tui.cli.main", "--help"], capture_output=True,
                         text=True, timeout=60, check=True).stdout
    assert "ask" in out and "PAPERPILOT_HOME" in out
