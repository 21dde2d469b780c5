"""Sessions: list (title, last update, turns), open/resume, rename, delete (with a confirmation), new."""

from __future__ import annotations

from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from paperpilot_tui.actions import bindings
from paperpilot_tui.runtime import call, one_line
from paperpilot_tui.screens.dialogs import ConfirmScreen, PromptScreen
from paperpilot_tui.timefmt import fmt_time


class SessionsScreen(Screen):
    CSS_PATH = "browsers.tcss"
    BINDINGS = bindings("sessions", "dialog")
    HELP_SCOPES = ("sessions", "dialog", "app")
    HELP_TITLE = "Sessions"

    def __init__(self) -> None:
        super().__init__(id="sessions-screen")
        self.sessions: list[Any] = []

    def compose(self) -> ComposeResult:
        yield Static("Sessions — conversations you can resume", classes="browser-title")
        yield DataTable(id="sessions", cursor_type="row", zebra_stripes=True)
        yield Static("", id="browser-status")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column("id", key="id", width=12)
        table.add_column("title", key="title", width=60)
        table.add_column("updated", key="updated", width=16)
        table.add_column("turns", key="turns", width=5)
        table.focus()
        self.reload()

    @property
    def store(self) -> Any:
        return getattr(self.app.session.stores, "sessions", None)

    @work(exclusive=True, group="sessions")
    async def reload(self) -> None:
        if self.store is None:
            self.query_one("#browser-status", Static).update("the session store is not open yet")
            return
        self.sessions = await call(self.store.list)
        table = self.query_one(DataTable)
        table.clear()
        current = self.app.session.session_id
        for s in self.sessions:
            mark = "▶ " if s.id == current else ""
            table.add_row(mark + s.id, s.title, fmt_time(s.updated), str(s.turn_count), key=s.id)
        self.query_one("#browser-status", Static).update(
            f"{len(self.sessions)} session(s) · enter open · n new · r rename · d delete · esc back")

    def selected(self) -> Any:
        table = self.query_one(DataTable)
        if not self.sessions or not 0 <= table.cursor_row < len(self.sessions):
            return None
        return self.sessions[table.cursor_row]

    @on(DataTable.RowSelected)
    def _row_selected(self) -> None:
        self.action_open()

    def action_open(self) -> None:
        s = self.selected()
        if s is not None:
            self.app.open_session(s.id)

    def action_new(self) -> None:
        self.app.action_new_session()

    @work
    async def action_rename(self) -> None:
        s = self.selected()
        if s is None:
            return
        title = await self.app.push_screen_wait(PromptScreen(f"Rename session {s.id}", s.title))
        if title and title.strip():
            await self._change(self.store.rename, s.id, title.strip(), done="renamed")

    @work
    async def action_delete(self) -> None:
        s = self.selected()
        if s is None:
            return
        if await self.app.push_screen_wait(ConfirmScreen(f"Delete session {s.id}?\n\n{s.title}\n\n"
                                                         "Its conversation is removed; facts stay.")):
            checkpoints = getattr(self.app.session.stores, "checkpoints", None)
            if await self._change(self.store.delete, s.id, checkpoints, done=f"session {s.id} deleted"):
                self.app.session_deleted(s.id)

    async def _change(self, fn: Any, *args: Any, done: str) -> bool:
        try:
            await call(fn, *args)
        except Exception as exc:  # noqa: BLE001
            self.notify(one_line(exc), severity="error")
            return False
        self.notify(done, timeout=3)
        self.reload()
        return True

    def action_dismiss_screen(self) -> None:
        self.app.pop_screen()
