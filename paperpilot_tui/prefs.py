"""Preferences the app remembers between launches (the theme), in a small JSON file in the data dir.

They are kept apart from the user's ``settings.yaml``, which the app never writes: ``tui.theme`` in
the settings stays the default, and a stored preference wins over it once the user picks a theme in
the app. A missing or unreadable file is no preference.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

PREFS_FILE = "tui-prefs.json"


def prefs_path(settings: Any) -> Path:
    return settings.paths.resolve(PREFS_FILE)


def load_prefs(settings: Any) -> dict[str, Any]:
    try:
        data = json.loads(prefs_path(settings).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save_pref(settings: Any, key: str, value: Any) -> None:
    """Store one preference (atomically: write a temporary file, then rename it over the old one)."""
    path = prefs_path(settings)
    data = load_prefs(settings)
    if data.get(key) == value:
        return
    data[key] = value
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)
