"""Replay picker: past traces (newest first); enter replays one on the main screen, where the
same panes animate as recorded (space pauses, +/- change speed, esc stops).

Below ``WIDE`` columns the table leaves out the strategy, retries and time columns (the preview under
it names the strategy), so the question keeps room at 80 columns instead of the row running off the edge."""

from __future__ import annotations

from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from paperpilot_tui.actions import bindings
from paperpilot_tui.runtime import call
from paperpilot_tui.timefmt import fmt_time
from paperpilot_tui.widgets.table_fit import fit_column
from paperpilot_tui.widgets.trace_text import fmt_ms

# (label, key, width, shown when narrow)
COLUMNS = (("trace", "id", 16, True), ("when", "when", 16, True), ("question", "q", 44, True),
           ("strategy", "strategy", 11, False), ("retries", "retries", 7, False), ("time", "time", 8, False),
           ("result", "ok", 6, True))
WIDE = 100


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
        self.on_resize()
        self.query_one(DataTable).focus()
        self.reload()

    def _columns(self) -> list[tuple[str, str, int, bool]]:
        wide = self.size.width >= WIDE
        return [c for c in COLUMNS if wide or c[3]]

    def on_resize(self) -> None:
        """The columns for this width (rebuilt, rows included, when it crosses ``WIDE``); the question
        takes what the others leave of the screen."""
        table = self.query_one(DataTable)
        columns = self._columns()
        if [str(k.value) for k in table.columns] != [c[1] for c in columns]:
            row = table.cursor_row
            table.clear(columns=True)
            for label, key, width, _ in columns:
                table.add_column(label, key=key, width=width)
            self._fill()
            table.move_cursor(row=row)
        fit_column(table, "q", self.size.width, most=44)

    @property
    def store(self) -> Any:
        return getattr(self.app.session.stores, "traces", None)

    @work(exclusive=True, group="traces")
    async def reload(self) -> None:
        if self.store is None:
            self.query_one("#browser-status", Static).update("the trace store is not open yet")
            return
        self.traces = await call(self.store.list, None, 200)
        self._fill()
        self.query_one("#browser-status", Static).update(
            f"{len(self.traces)} trace(s) · enter replay · esc back")
        self._preview()

    def _fill(self) -> None:
        table = self.query_one(DataTable)
        table.clear()
        keys = [str(k.value) for k in table.columns]
        for t in self.traces:
            cells = {"id": t.trace_id, "when": fmt_time(t.started), "q": t.question, "strategy": t.strategy or "—",
                     "retries": str(t.retries), "time": fmt_ms(t.duration_ms), "ok": "✗" if t.error else "✓"}
            table.add_row(*(cells[k] for k in keys), key=t.trace_id)

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
