"""Where PaperPilot keeps its files.

All mutable data (SQLite stores, the hub index, adapters you train) lives under one data
directory: ``$PAPERPILOT_HOME`` when set, else the platform's user data dir (XDG on Linux).
The optional user config file lives in the platform's config dir, or ``$PAPERPILOT_HOME``.
"""

from __future__ import annotations

import os
from pathlib import Path

APP = "paperpilot"


def home() -> Path:
    """The data directory, created on first use."""
    env = os.environ.get("PAPERPILOT_HOME")
    if env:
        path = Path(env).expanduser()
    else:
        from platformdirs import user_data_path

        path = user_data_path(APP, appauthor=False)
    path.mkdir(mode=0o700, parents=True, exist_ok=True)  # the data holds questions, facts, traces
    return path


def private_file(path: str | Path) -> Path:
    """Create ``path`` (if missing) readable and writable by its owner only (0600); SQLite then
    gives its -wal and -shm files the same mode.

    An existing file is only chmod-ed, never opened: POSIX record locks belong to the process, and
    closing any descriptor of a file drops every lock SQLite holds on it for this process's other
    connections (another process could then checkpoint and delete the WAL under them)."""
    path = Path(path)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        if path.stat().st_mode & 0o077:
            path.chmod(0o600)
    return path


def too_open(path: str | Path | None = None) -> str:
    """A warning when the data directory can be read or entered by other users, else ""."""
    path = Path(path) if path is not None else home()
    try:
        mode = path.stat().st_mode & 0o777
    except OSError:
        return ""
    if mode & 0o077:
        return (f"the data directory {path} is readable by other users (mode {mode:o}); "
                f"it holds your questions and facts: chmod 700 {path}")
    return ""


def user_config_file() -> Path:
    """The optional user settings file (it need not exist)."""
    env = os.environ.get("PAPERPILOT_HOME")
    if env:
        return Path(env).expanduser() / "settings.yaml"
    from platformdirs import user_config_path

    return user_config_path(APP, appauthor=False) / "settings.yaml"
