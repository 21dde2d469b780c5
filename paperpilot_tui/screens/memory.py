"""Memory browser: list and search long-term facts, edit in place, add, pin/unpin, delete (with a
confirmation). Each change is one fact-store call, i.e. one transaction, run off the UI thread.

The fact column takes the width the other columns leave; the highlighted fact is shown in full
below the table with where it came from (session, question, and the document and chunk that
supported it), when it was created, updated and last recalled, and the keywords it is recalled by."""

from __future__ import annotations

from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Static

from core.memory.audit import by_hand, provenance
from paperpilot_tui.actions import bindings
from paperpilot_tui.runtime import call, one_line
from paperpilot_tui.screens.dialogs import ConfirmScreen, PromptScreen
from paperpilot_tui.timefmt import fmt_time
from paperpilot_tui.widgets.table_fit import LEAST, fit_column


class MemoryScreen(Screen):
    CSS_PATH = "browsers.tcss"
    BINDINGS = bindings("memory", "dialog")
    HELP_SCOPES = ("memory", "dialog", "app")
    HELP_TITLE = "Memory browser"

    def __init__(self) -> None:
        super().__init__(id="memory-screen")
        self.facts: list[Any] = []
        self.query_text = ""
        self.editing: int | None = None

    def compose(self) -> ComposeResult:
        yield Static("Memory — facts the agent remembers across sessions", classes="browser-title")
        yield Input(placeholder="search facts (/)", id="fact-search")
        yield DataTable(id="facts", cursor_type="row", zebra_stripes=True)
        yield Static("", id="fact-detail", markup=False)
        yield Input(placeholder="edit the fact; enter saves, esc cancels", id="fact-editor", classes="-hidden",
                    select_on_focus=False)
        yield Static("", id="browser-status")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column("id", key="id", width=4)
        table.add_column("pin", key="pin", width=3)
        table.add_column("fact", key="fact", width=LEAST)
        table.add_column("recalls", key="recalls", width=7)
        table.add_column("updated", key="updated", width=16)
        self.on_resize()
        table.focus()
        self.reload()

    @property
    def store(self) -> Any:
        return getattr(self.app.session.stores, "facts", None)

    @work(exclusive=True, group="facts")
    async def reload(self, select: int | None = None) -> None:
        if self.store is None:
            self._status("the fact store is not open yet (or memory is disabled)")
            return
        self.facts = await call(self.store.list, None, self.query_text or None)
        table = self.query_one(DataTable)
        table.clear()
        for f in self.facts:
            table.add_row(str(f.id), "●" if f.pinned else "", f.content, str(f.recall_count),
                          fmt_time(f.updated), key=str(f.id))
        if select is not None:
            for row, f in enumerate(self.facts):
                if f.id == select:
                    table.move_cursor(row=row)
        self._show_detail()
        where = f" matching “{self.query_text}”" if self.query_text else ""
        self._status(f"{len(self.facts)} fact(s){where} · a add · e edit · p pin · d delete · / search · esc back")

    def on_resize(self) -> None:
        """The fact takes what the id, pin, recalls and updated columns leave of the screen."""
        fit_column(self.query_one(DataTable), "fact", self.size.width, least=20)

    @on(DataTable.RowHighlighted)
    def _show_detail(self) -> None:
        fact = self.selected()
        detail = self.query_one("#fact-detail", Static)
        if fact is None:
            detail.update(self._empty())
            return
        origin = f"session {fact.session_id}" if fact.session_id else "added by hand"
        if fact.source_question:
            origin += f" · asked: “{fact.source_question}”"
        if not by_hand(fact):  # the document and chunk it was learnt from (or that this is unknown)
            origin += f"\n{provenance(fact)}"
        recalled = (f"recalled {fact.recall_count}×, last {fmt_time(fact.last_recalled)}" if fact.last_recalled
                    else f"recalled {fact.recall_count}×")
        pinned = " · pinned" if fact.pinned else ""
        keywords = f"\nkeywords: {', '.join(fact.keywords)}" if fact.keywords else ""
        detail.update(f"fact {fact.id}{pinned}\n{fact.content}\n{origin}\n"
                      f"created {fmt_time(fact.created)} · updated {fmt_time(fact.updated)} · {recalled}{keywords}")

    def _empty(self) -> str:
        if self.query_text:
            return f"No fact matches “{self.query_text}” (esc, then / to search again)."
        how = ("After each answer the agent keeps what it learned: short facts from the question and the "
               "answer, recalled in later sessions when a question needs them."
               if self.app.settings.memory.enabled else
               "Memory is off (memory.enabled: false in the settings): answers are not remembered.")
        return f"No facts yet. {how}\nPress a to add one by hand."

    def _status(self, text: str) -> None:
        self.query_one("#browser-status", Static).update(text)

    def selected(self) -> Any:
        table = self.query_one(DataTable)
        if not self.facts or table.cursor_row < 0 or table.cursor_row >= len(self.facts):
            return None
        return self.facts[table.cursor_row]

    async def _change(self, fn: Any, *args: Any, select: int | None = None, done: str = "") -> None:
        try:
            result = await call(fn, *args)
        except Exception as exc:  # noqa: BLE001 - one line, the browser stays open
            self.notify(one_line(exc), severity="error")
            return
        if done:
            self.notify(done, timeout=3)
        self.reload(select if select is not None else getattr(result, "id", None))

    # ---- actions -------------------------------------------------------------------------------

    def action_search(self) -> None:
        self.query_one("#fact-search", Input).focus()

    @on(Input.Changed, "#fact-search")
    def _search(self, event: Input.Changed) -> None:
        self.query_text = event.value.strip()
        self.reload()

    @on(Input.Submitted, "#fact-search")
    def _search_done(self) -> None:
        self.query_one(DataTable).focus()

    def action_edit(self) -> None:
        fact = self.selected()
        if fact is None:
            return
        self.editing = fact.id
        editor = self.query_one("#fact-editor", Input)
        editor.value = fact.content
        editor.remove_class("-hidden")
        editor.border_title = f"editing fact {fact.id}"
        editor.focus()
        editor.cursor_position = len(fact.content)

    @on(DataTable.RowSelected)
    def _row_selected(self) -> None:
        self.action_edit()

    @on(Input.Submitted, "#fact-editor")
    async def _save_edit(self, event: Input.Submitted) -> None:
        fid, self.editing = self.editing, None
        self._close_editor()
        if fid is not None and event.value.strip():
            await self._change(self.store.edit, fid, event.value.strip(), select=fid, done=f"fact {fid} saved")

    def _close_editor(self) -> None:
        self.query_one("#fact-editor", Input).add_class("-hidden")
        self.query_one(DataTable).focus()

    def action_dismiss_screen(self) -> None:
        if self.editing is not None:
            self.editing = None
            self._close_editor()
        elif self.focused is self.query_one("#fact-search"):
            self.query_one(DataTable).focus()
        else:
            self.app.pop_screen()

    @work
    async def action_add(self) -> None:
        if self.store is None:
            return
        text = await self.app.push_screen_wait(PromptScreen("Add a fact", placeholder="one self-contained fact"))
        if text and text.strip():
            await self._change(self.store.add, text.strip(), done="fact added")

    async def action_pin(self) -> None:
        fact = self.selected()
        if fact is not None:
            fn = self.store.unpin if fact.pinned else self.store.pin
            await self._change(fn, fact.id, select=fact.id, done=f"fact {fact.id} {'unpinned' if fact.pinned else 'pinned'}")

    @work
    async def action_delete(self) -> None:
        fact = self.selected()
        if fact is None:
            return
        if await self.app.push_screen_wait(ConfirmScreen(f"Delete fact {fact.id}?\n\n{fact.content}")):
            await self._change(self.store.delete, fact.id, done=f"fact {fact.id} deleted")
