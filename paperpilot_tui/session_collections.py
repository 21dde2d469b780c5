"""Which collection each conversation was asked in, so reopening it (``--continue``, F2, the sidebar)
answers from the same papers.

The agent's stores keep no collection per session, and the app never writes the user's
``settings.yaml``: the mapping is an app preference (``tui-prefs.json`` in the data dir, see
:mod:`paperpilot_tui.prefs`), written when a question is asked. Only the newest ``KEEP`` sessions are
kept, so the file stays small. A session with no entry (asked before this existed, or never asked in)
reopens on the active collection.
"""

from __future__ import annotations

from typing import Any

from paperpilot_tui.prefs import load_prefs, save_pref

KEY = "session_collections"
KEEP = 200


def _known(settings: Any) -> list[tuple[str, str]]:
    """The stored ``[session, collection]`` pairs, oldest first (a list: the prefs file sorts keys)."""
    stored = load_prefs(settings).get(KEY)
    if not isinstance(stored, list):
        return []
    return [(p[0], p[1]) for p in stored if isinstance(p, list) and len(p) == 2
            and all(isinstance(x, str) and x for x in p)]


def remember(settings: Any, session_id: str, collection: str) -> None:
    """Record that ``session_id`` asks ``collection`` (the newest entry goes last)."""
    known = _known(settings)
    if known[-1:] == [(session_id, collection)]:
        return
    known = [p for p in known if p[0] != session_id] + [(session_id, collection)]
    save_pref(settings, KEY, [list(p) for p in known[-KEEP:]])


def recall(settings: Any, session_id: str) -> str | None:
    """The collection ``session_id`` was last asked in, or None."""
    return next((c for s, c in reversed(_known(settings)) if s == session_id), None)
