"""Run ``paperpilot ask`` as real subprocesses on a private home, with a pre-indexed hub database."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def write_settings(path: Path, hub_db: Path, *, memory: bool = False, extra: str = "") -> Path:
    """Offline, rule router and critic (no model loads), the bundled hub serving ``hub_db``."""
    path.write_text(
        "agent:\n  router: rules\n  critic: rules\n" + extra
        + f"memory:\n  enabled: {'true' if memory else 'false'}\n"
        + f"mcp:\n  connections:\n    hub:\n      args: [-m, core.hub, serve, --db, {json.dumps(str(hub_db))}]\n")
    return path


class Ask:
    """One ``paperpilot ask --json`` process; its stderr lines are collected as they come. It leads its
    own process group, so :meth:`kill` also ends the stdio hub it started."""

    def __init__(self, home: Path, config: Path, question: str, *, session: str, env: dict | None = None) -> None:
        self.question = question
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "paperpilot_tui.cli.main", "ask", "--json", "--llm", "offline",
             "--config", str(config), "--session", session, question],
            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
            env={**os.environ, "PAPERPILOT_HOME": str(home), **(env or {})})
        self.err_lines: list[str] = []
        self._out: list[str] = []
        self._readers = [threading.Thread(target=self._read, args=(self.proc.stderr, self.err_lines), daemon=True),
                         threading.Thread(target=self._read, args=(self.proc.stdout, self._out), daemon=True)]
        for t in self._readers:
            t.start()

    @staticmethod
    def _read(stream, into: list[str]) -> None:
        for line in stream:
            into.append(line.rstrip("\n"))

    def kill(self) -> None:
        """SIGKILL the process group (``ask`` and its hub child); a no-op once all of it is gone."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait(10)

    def finish(self, timeout: float = 120) -> tuple[int, dict | None, str]:
        """(exit code, the JSON result or None, stderr)."""
        self.proc.wait(timeout=timeout)
        for t in self._readers:
            t.join(5)
        out = "\n".join(self._out)
        data = json.loads(out) if self.proc.returncode == 0 and out.strip() else None
        return self.proc.returncode, data, "\n".join(self.err_lines)
