"""Which document an ``@paper`` mention scoped each question of a conversation to, so a reopened
session (``--continue``, F2, the sidebar) keeps it: regenerating an earlier answer asks again
scoped to the same paper.

The agent stores the question as it was asked (the mention already replaced by the paper's name)
and no scope, and the app never writes the user's ``settings.yaml``: like the session's collection
(:mod:`paperpilot_tui.session_collections`), the scope is an app preference in ``tui-prefs.json``,
written when the question is asked. An entry is ``[session, question, doc_id]``; the same question
asked again in the same session replaces its entry (asked unscoped, it removes it), so the latest
ask wins. Only the newest ``KEEP`` entries are kept.
"""

from __future__ import annotations

from typing import Any

from paperpilot_tui.prefs import load_prefs, save_pref

KEY = "session_scopes"
KEEP = 500


def _known(settings: Any) -> list[tuple[str, str, str]]:
    """The stored ``[session, question, doc_id]`` entries, oldest first."""
    stored = load_prefs(settings).get(KEY)
    if not isinstance(stored, list):
        return []
    return [(e[0], e[1], e[2]) for e in stored if isinstance(e, list) and len(e) == 3
            and all(isinstance(x, str) and x for x in e)]


def remember(settings: Any, session_id: str, question: str, doc_id: str | None) -> None:
    """Record that ``question`` in ``session_id`` was scoped to ``doc_id`` (None: not scoped)."""
    known = _known(settings)
    kept = [e for e in known if (e[0], e[1]) != (session_id, question)]
    if doc_id:
        kept.append((session_id, question, doc_id))
    if kept != known:
        save_pref(settings, KEY, [list(e) for e in kept[-KEEP:]])


def recall(settings: Any, session_id: str) -> dict[str, str]:
    """``{question: doc_id}`` for the scoped questions of ``session_id``."""
    return {q: d for s, q, d in _known(settings) if s == session_id}
