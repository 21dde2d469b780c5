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
    path.mkdir(parents=True, exist_ok=True)
    return path


def user_config_file() -> Path:
    """The optional user settings file (it need not exist)."""
    env = os.environ.get("PAPERPILOT_HOME")
    if env:
        return Path(env).expanduser() / "settings.yaml"
    from platformdirs import user_config_path

    return user_config_path(APP, appauthor=False) / "settings.yaml"
