"""Sessions: list (title, last update, turns), open/resume, rename, delete (with a confirmation), new.

Below the table, the highlighted session in detail: its title and id, when it was started and last
used, how many turns it has, and its first and latest questions with the time and LLM calls its
turns took (from the trace store, when tracing recorded them). Deep-research sessions are listed too,
marked ◆ (:mod:`paperpilot_tui.conversations`); enter reopens one on its review or on what its run waits for."""

from __future__ import annotations

from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from paperpilot_tui.actions import bindings
from paperpilot_tui.conversations import conversations
from paperpilot_tui.runtime import call, one_line
from paperpilot_tui.screens.dialogs import ConfirmScreen, PromptScreen
from paperpilot_tui.timefmt import fmt_time
from paperpilot_tui.widgets.table_fit import fit_column


class SessionsScreen(Screen):
    CSS_PATH = "browsers.tcss"
    BINDINGS = bindings("sessions", "dialog")
    HELP_SCOPES = ("sessions", "dialog", "app")
    HELP_TITLE = "Sessions"

    def __init__(self) -> None:
        super().__init__(id="sessions-screen")
        self.sessions: list[Any] = []
        self.traces: dict[str, list[Any]] | None = None  # session id → its recorded turns, newest first

    def compose(self) -> ComposeResult:
        yield Static("Sessions — conversations you can resume", classes="browser-title")
        yield DataTable(id="sessions", cursor_type="row", zebra_stripes=True)
        yield Static("", id="session-detail", markup=False)
        yield Static("", id="browser-status")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column("id", key="id", width=12)
        table.add_column("title", key="title", width=60)
        table.add_column("updated", key="updated", width=16)
        table.add_column("turns", key="turns", width=5)
        self.on_resize()
        table.focus()
        self.reload()

    def on_resize(self) -> None:
        """The title takes what the id, updated and turns columns leave of the screen (80 columns cut them)."""
        fit_column(self.query_one(DataTable), "title", self.size.width, most=60)

    @property
    def store(self) -> Any:
        return getattr(self.app.session.stores, "sessions", None)

    @work(exclusive=True, group="sessions")
    async def reload(self) -> None:
        if self.store is None:
            self.query_one("#browser-status", Static).update("the session store is not open yet")
            return
        self.traces = await self._traces()
        recorded = [t for turns in (self.traces or {}).values() for t in turns]
        self.sessions = conversations(await call(self.store.list), recorded)  # research sessions too (◆)
        table = self.query_one(DataTable)
        table.clear()
        current = self.app.session.session_id
        for s in self.sessions:
            mark = ("▶ " if s.id == current else "") + ("◆ " if s.research else "")
            table.add_row(mark + s.id, s.title, fmt_time(s.updated), str(s.turn_count), key=s.id)
        self.query_one("#browser-status", Static).update(
            f"{len(self.sessions)} session(s) · enter open · n new · r rename · d delete · esc back")
        self._show_detail()

    @on(DataTable.RowHighlighted)
    def _show_detail(self) -> None:
        s = self.selected()
        detail = self.query_one("#session-detail", Static)
        if s is None:
            detail.update("No sessions yet. Every question you ask is saved in the current session, so you can "
                          "resume the conversation here later (enter), also after a restart.\n"
                          "Press n (or ctrl+n anywhere) to start a new one.")
            return
        detail.update(self._describe(s, self.traces.get(s.id, []) if self.traces is not None else None))

    def _describe(self, s: Any, traces: list[Any] | None) -> str:
        current = " · the current session" if s.id == self.app.session.session_id else ""
        count = f"deep research · {s.turn_count} run(s)" if s.research else f"{s.turn_count} turn(s)"
        lines = [f"{s.title}", f"session {s.id}{current} · {count} · started {fmt_time(s.created)}"
                 f" · last used {fmt_time(s.updated)}"]
        if traces:  # newest first
            lines.append(f"first question: {traces[-1].question}")
            if len(traces) > 1:
                lines.append(f"latest question: {traces[0].question}")
            seconds = sum(t.duration_ms for t in traces) / 1000
            calls = sum(t.llm_calls for t in traces)
            lines.append(f"{len(traces)} recorded turn(s) · {seconds:.1f} s · {calls} LLM call(s)")
        elif traces is not None:
            lines.append("no recorded turns in the trace store (tracing.enabled was off)")
        return "\n".join(lines)

    async def _traces(self) -> dict[str, list[Any]] | None:
        """Every recorded turn (summaries only), by session; None without a trace store."""
        store = getattr(self.app.session.stores, "traces", None)
        if store is None:
            return None
        try:
            summaries = await call(store.list, None, None)
        except Exception:  # noqa: BLE001 - the detail keeps what the session rows say
            return None
        out: dict[str, list[Any]] = {}
        for t in summaries:
            out.setdefault(t.session_id, []).append(t)
        return out

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
            if s.research:  # reopen its review, or what its run waits for
                self.app.research.continue_()

    def action_new(self) -> None:
        self.app.action_new_session()

    @work
    async def action_rename(self) -> None:
        s = self.selected()
        if s is None:
            return
        if s.research:
            self.notify("a research session is named by its topic", timeout=3)
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
