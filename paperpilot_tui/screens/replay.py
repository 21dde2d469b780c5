"""Replay picker: past traces (newest first); enter replays one on the main screen, where the
same panes animate as recorded (space pauses, +/- change speed, esc stops)."""

from __future__ import annotations

from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from paperpilot_tui.actions import bindings
from paperpilot_tui.runtime import call
from paperpilot_tui.timefmt import fmt_time
from paperpilot_tui.widgets.trace_text import fmt_ms


class ReplayScreen(Screen):
    CSS_PATH = "browsers.tcss"
    BINDINGS = bindings("replay", "dialog")
    HELP_SCOPES = ("replay", "dialog", "app")
    HELP_TITLE = "Replay"

    def __init__(self) -> None:
        super().__init__(id="replay-screen")
        self.traces: list[Any] = []

    def compose(self) -> ComposeResult:
        yield Static("Replay — pick a recorded turn to play back", classes="browser-title")
        yield DataTable(id="traces", cursor_type="row", zebra_stripes=True)
        yield Static("", id="trace-preview")
        yield Static("", id="browser-status")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for label, key, width in (("trace", "id", 16), ("when", "when", 16), ("question", "q", 44),
                                  ("strategy", "strategy", 11), ("retries", "retries", 7), ("time", "time", 8),
                                  ("result", "ok", 6)):
            table.add_column(label, key=key, width=width)
        table.focus()
        self.reload()

    @property
    def store(self) -> Any:
        return getattr(self.app.session.stores, "traces", None)

    @work(exclusive=True, group="traces")
    async def reload(self) -> None:
        if self.store is None:
            self.query_one("#browser-status", Static).update("the trace store is not open yet")
            return
        self.traces = await call(self.store.list, None, 200)
        table = self.query_one(DataTable)
        table.clear()
        for t in self.traces:
            table.add_row(t.trace_id, fmt_time(t.started), t.question, t.strategy or "—", str(t.retries),
                          fmt_ms(t.duration_ms), "✗" if t.error else "✓", key=t.trace_id)
        self.query_one("#browser-status", Static).update(
            f"{len(self.traces)} trace(s) · enter replay · esc back")
        self._preview()

    @on(DataTable.RowHighlighted)
    def _preview(self) -> None:
        t = self.selected()
        text = "" if t is None else (f"session {t.session_id} · intent {t.intent or '—'} · strategy "
                                     f"{t.strategy or '—'}\n{t.question}" + (f"\nerror: {t.error}" if t.error else ""))
        self.query_one("#trace-preview", Static).update(text)

    def selected(self) -> Any:
        table = self.query_one(DataTable)
        if not self.traces or not 0 <= table.cursor_row < len(self.traces):
            return None
        return self.traces[table.cursor_row]

    @on(DataTable.RowSelected)
    def _row_selected(self) -> None:
        self.action_play()

    def action_play(self) -> None:
        t = self.selected()
        if t is not None:
            self.app.replay(t.trace_id)

    def action_dismiss_screen(self) -> None:
        self.app.pop_screen()
