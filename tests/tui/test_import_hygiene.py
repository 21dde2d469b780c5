"""Start-up path hygiene: the app module and `paperpilot --help` must not pull in heavy libraries."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("torch", "transformers", "langgraph", "sentence_transformers", "peft", "trl")


def _loaded_after(code: str) -> list[str]:
    probe = f"{code}\nimport sys\nprint('loaded:' + ','.join(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120)
    line = [x for x in out.stdout.splitlines() if x.startswith("loaded:")][-1]
    return [m for m in line[len("loaded:"):].split(",") if m]


def test_importing_the_app_imports_no_heavy_library():
    assert _loaded_after("import paperpilot_tui.app") == []


def test_paperpilot_help_imports_no_heavy_library():
    code = ("from paperpilot_tui.cli.main import build_parser\nimport contextlib, io\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n        build_parser().parse_args(['--help'])\n    except SystemExit:\n        pass")
    assert _loaded_after(code) == []
