"""The conversations sidebar: this data dir's sessions, newest first, one line each; enter reopens one.

Shown on the main screen from :data:`WIDE` columns (``MainScreen.wide``), hidden below, and toggled
with a key either way. A deep-research run keeps its own thread, not a chat session row, so research
sessions come from the trace store (a recorded ``research: TOPIC`` turn) and are marked ``◆``. The
list reloads when a turn ends and when the session changes; it reads the stores in a worker and never
runs the agent.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from paperpilot_tui.conversations import TRACES_READ, Conversation, conversations
from paperpilot_tui.runtime import call

WIDE = 140  # from this width the sidebar is shown by default
LIMIT = 200  # rows listed (the sessions browser, F2, has them all)
NEW_TITLE = "(new conversation)"


def label(row: Conversation, current: str) -> Text:
    """One line: ``▶`` on the current session, ``◆`` on a research one, then the title."""
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append("▶ " if row.id == current else "  ", style="bold")
    if row.research:
        text.append("◆ ", style="bold")
    text.append(row.title)
    return text


class ConversationsSidebar(Vertical):
    """The list of conversations; :meth:`reload` re-reads it from the stores."""

    DEFAULT_CSS = """
    ConversationsSidebar { width: 28; border: round $primary 60%; border-title-color: $accent;
                           border-title-style: bold; }
    ConversationsSidebar:focus-within { border: round $accent; }
    ConversationsSidebar > OptionList { border: none; height: 1fr; padding: 0; background: transparent;
                                        text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rows: list[Conversation] = []

    def compose(self) -> ComposeResult:
        yield OptionList(id="conversation-list")

    def on_mount(self) -> None:
        self.border_title = "Conversations"
        self.reload()

    @work(exclusive=True, group="sidebar")
    async def reload(self) -> None:
        """Read the sessions (and the research turns) again and redraw; keeps the highlighted row."""
        stores = self.app.session.stores
        store = getattr(stores, "sessions", None)
        if store is None:  # the stores open after the first paint: look again shortly
            self._show([], "opening the session store…")
            self.set_timer(0.5, self.reload)
            return
        traces = getattr(stores, "traces", None)
        sessions = await call(store.list, LIMIT)
        try:
            recorded = await call(traces.list, None, TRACES_READ) if traces is not None else []
        except Exception:  # noqa: BLE001 - without the trace store, research runs are not listed
            recorded = []
        listed = conversations(sessions, recorded, LIMIT)
        current = self.app.session.session_id
        if all(r.id != current for r in listed):  # the session open now, before its first turn is stored
            listed.insert(0, Conversation(current, NEW_TITLE, 0.0))
        self._show(listed)

    def _show(self, rows: list[Conversation], empty: str = "") -> None:
        self.rows = rows
        try:
            options = self.query_one(OptionList)
        except NoMatches:  # the app closed while the reload awaited the store: nothing left to draw
            return
        keep = options.highlighted
        current = self.app.session.session_id
        options.clear_options()
        if not rows:
            options.add_option(Option(Text(empty, style="dim"), disabled=True))
            return
        options.add_options(Option(label(r, current), id=r.id) for r in rows)
        if keep is not None:
            options.highlighted = min(keep, len(rows) - 1)
        self.border_subtitle = f"{len(rows)}"

    @on(OptionList.OptionSelected, "#conversation-list")
    def _open(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        row = next((r for r in self.rows if r.id == event.option.id), None)
        if row is None or row.id == self.app.session.session_id:
            self.screen.query_one("#chat-input").focus()
            return
        self.app.open_session(row.id)
        if row.research:  # reopen the review, or whatever its run waits for
            self.app.research.continue_()
