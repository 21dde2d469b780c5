"""Reopening where the user left off: ``paperpilot --continue`` / ``tui.resume: last``.

The session looks up the most recently used session once the stores are open and posts
:class:`~paperpilot_tui.messages.LastSession`; the app hands it here. A question already asked in the
new session wins (the user started something: it is not swapped away under them).
"""

from __future__ import annotations

from typing import Any

NO_LAST = "no earlier session to continue: this is a new one"


def continue_last(app: Any, session_id: str | None) -> None:
    """Reopen ``session_id`` on the main screen, or say in one line that there is none."""
    session = app.session
    if session.run or session.busy or session.resumed:  # the user already asked here, or chose a session
        return
    if session_id is None:
        app.main_screen.query_one("ChatPane").note(NO_LAST)
        return
    app.open_session(session_id)
