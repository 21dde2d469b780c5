"""Helpers for hub tests: environment and stdio parameters for real server processes."""

from __future__ import annotations

import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
STUB = REPO / "tests" / "stubs" / "upstream_server.py"


def server_env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PAPERPILOT_HOME"] = str(home)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def hub_params(home: Path):
    from mcp import StdioServerParameters

    return StdioServerParameters(command=sys.executable, args=["-m", "core.hub", "serve"],
                                 env=server_env(home), cwd=str(REPO))


def stub_params():
    from mcp import StdioServerParameters

    return StdioServerParameters(command=sys.executable, args=[str(STUB)], env=server_env(REPO), cwd=str(REPO))
