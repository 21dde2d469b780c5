"""Shared pieces of the fault suite (``bench/faults.py``): the row every experiment returns, bounded
subprocesses that are killed as a whole process group, and a data home with an indexed hub.

Why process groups: ``paperpilot ask`` starts its own stdio hub child. Killing only ``ask`` (after a
hang, or when the suite is interrupted) would leave that hub running, so every process the suite
starts leads its own session (``start_new_session``) and is ended with ``killpg``.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.faults_hub import classify, indexed_home

ROOT = Path(__file__).resolve().parents[1]

CLI = [sys.executable, "-m", "paperpilot_tui.cli.main"]
COLUMNS = ("experiment", "tries", "survived", "clear_error", "traceback", "hang", "lost")


def row(experiment: str, tries: int = 0, survived: int = 0, clear_error: int | str = 0, traceback: int = 0,
        hang: int = 0, lost: int | str = 0, notes: str = "", **extra) -> dict:
    """The row shape every experiment returns (``extra`` keys carry experiment-specific counts)."""
    return {"experiment": experiment, "tries": tries, "survived": survived, "clear_error": clear_error,
            "traceback": traceback, "hang": hang, "lost": lost, "notes": notes, **extra}


def killpg(proc: subprocess.Popen | None) -> None:
    """SIGKILL ``proc``'s whole process group (it and any hub it started); reap ``proc``."""
    if proc is None:
        return
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        pass


def env_for(home: Path, **extra: str) -> dict[str, str]:
    """The environment of a CLI process on ``home`` (the worktree first on the path)."""
    return {**os.environ, "PAPERPILOT_HOME": str(home), "PYTHONPATH": str(ROOT), **extra}


def run_cli(home: Path, *argv: str, timeout: float = 120, env: dict[str, str] | None = None) -> dict:
    """Run one ``paperpilot`` command to its end or to ``timeout`` (then its group is killed).
    Returns {code, stdout, stderr, hang, exit_s}, the outcome shape ``faults_hub.classify`` reads."""
    start = time.monotonic()
    proc = subprocess.Popen([*CLI, *argv], cwd=ROOT, env=env or env_for(home), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        hang = False
    except subprocess.TimeoutExpired:
        killpg(proc)
        out, err = proc.communicate()
        hang = True
    finally:
        killpg(proc)  # a hub child left behind by a command that exited
    return {"code": None if hang else proc.returncode, "stdout": out, "stderr": err, "hang": hang,
            "exit_s": time.monotonic() - start}


def tally(outcomes: list[dict]) -> dict[str, int]:
    """Counts over outcomes, classified the way the hub-kill driver does (one source of truth)."""
    counts = {"survived": 0, "answered": 0, "clear_error": 0, "traceback": 0, "hang": 0}
    for outcome in outcomes:
        for key, hit in classify(outcome).items():
            counts[key] += hit
    return counts


def home_with_hub(indexed: Path, prefix: str) -> Path:
    """A fresh data home holding a copy of ``indexed``'s hub database (the hub starts in seconds)."""
    home = Path(tempfile.mkdtemp(prefix=prefix))
    os.chmod(home, 0o700)
    for name in os.listdir(indexed):
        if name.startswith("hub.sqlite3"):
            shutil.copy2(indexed / name, home / name)
    return home


def settings_file(home: Path, *, memory: bool = False, agent: str = "", mcp: str = "", other: str = "") -> Path:
    """Offline, rule router and critic, the stdio hub serving ``home``'s own hub database."""
    path = home / "settings.yaml"
    path.write_text("agent:\n  router: rules\n  critic: rules\n" + agent
                    + f"memory:\n  enabled: {'true' if memory else 'false'}\n" + other
                    + "mcp:\n  use_daemon: false\n" + mcp)
    return path


__all__ = ["CLI", "COLUMNS", "ROOT", "env_for", "home_with_hub", "indexed_home", "killpg", "row", "run_cli",
           "settings_file", "tally"]
