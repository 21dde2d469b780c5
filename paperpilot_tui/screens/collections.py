"""Collections: the knowledge hub's collections with their document and chunk counts, a collection's
documents (title, year, pages, chunks), and switching the collection the next questions are answered from.

The top table lists ``list_collections`` (the active collection marked ●); enter lists the
highlighted collection's documents below it, their year, pages and chunks filled in from
``get_document_summary`` one by one, so a large collection shows its titles at once. ``u`` makes the
highlighted collection (or the one whose documents are shown) the active one and goes back to the
question box; the status bar follows. ``d`` on a listed document removes it from its collection
(asked first; the hub's ``remove_document`` drops its chunks, vectors and keyword entries). Everything is asked through the agent's hub client, so a
daemon, the bundled stdio hub and an upstream MCP server are listed the same way.
"""

from __future__ import annotations

from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from paperpilot_tui.actions import bindings
from paperpilot_tui.hub_collections import EMPTY_HINT, Collection, fetch
from paperpilot_tui.runtime import one_line
from paperpilot_tui.widgets.table_fit import fit_column

ACTIVE = "●"


def _cell(value: Any) -> str:
    return "—" if value in (None, "") else str(value)


class CollectionsScreen(Screen):
    CSS_PATH = "browsers.tcss"
    BINDINGS = bindings("collections", "dialog")
    HELP_SCOPES = ("collections", "dialog", "app")
    HELP_TITLE = "Collections"

    def __init__(self) -> None:
        super().__init__(id="collections-screen")
        self.collections: list[Collection] = []
        self.shown: Collection | None = None  # the collection whose documents are listed
        self.details: dict[str, dict[str, Any]] = {}  # doc_id → its summary (year, pages, chunk_count)
        self.reopen: str | None = None  # list this collection's documents after the next reload

    def compose(self) -> ComposeResult:
        yield Static("Collections — the hub's document sets; questions are answered from the active one (●)",
                     classes="browser-title")
        yield DataTable(id="collections", cursor_type="row", zebra_stripes=True)
        yield Static("", id="documents-title", markup=False)
        yield DataTable(id="documents", cursor_type="row", zebra_stripes=True)
        yield Static("", id="browser-status", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#collections", DataTable)
        table.add_column(" ", key="active", width=1)
        table.add_column("collection", key="name", width=30)
        table.add_column("documents", key="documents", width=9)
        table.add_column("chunks", key="chunks", width=7)
        docs = self.query_one("#documents", DataTable)
        docs.add_column("title", key="title", width=64)
        docs.add_column("year", key="year", width=4)
        docs.add_column("pages", key="pages", width=5)
        docs.add_column("chunks", key="chunks", width=6)
        self.on_resize()
        table.focus()
        self.reload()

    def on_resize(self) -> None:
        """A document's title takes what its year, pages and chunks leave of the screen."""
        fit_column(self.query_one("#documents", DataTable), "title", self.size.width, most=64)

    @property
    def hub(self) -> Any:
        return getattr(self.app.session.agent, "hub", None)

    def agent_ready(self) -> None:
        """The agent (and its hub) opened after this screen did: list the collections now."""
        self.reload()

    def _status(self, text: str) -> None:
        self.query_one("#browser-status", Static).update(text)

    @work(exclusive=True, group="collections")
    async def reload(self) -> None:
        if self.hub is None or not hasattr(self.hub, "list_collections"):
            self._status("the knowledge hub is not open yet: the collections show once it is"
                         if self.app.session.agent is None else "this knowledge hub cannot list its collections")
            return
        try:
            self.collections = await fetch(self.hub)
        except Exception as exc:  # noqa: BLE001 - a hub that failed: said on the screen, not raised
            self._status(f"could not list the collections: {one_line(exc)}")
            return
        table = self.query_one("#collections", DataTable)
        table.clear()
        active = self.app.session.collection
        for c in self.collections:
            table.add_row(ACTIVE if c.name == active else "", c.name, _cell(c.documents), _cell(c.chunks), key=c.name)
        names = [c.name for c in self.collections]
        if active in names:
            table.move_cursor(row=names.index(active))
        if not self.collections:
            self.query_one("#documents-title", Static).update(EMPTY_HINT)
            self._status(EMPTY_HINT)
            return
        self._status(f"{len(self.collections)} collection(s) · active: {active} · enter documents · "
                     "u use for questions · esc back")
        self._hint()
        if self.reopen in names:  # a document was removed: its collection's documents listed again
            table.move_cursor(row=names.index(self.reopen))
            self.action_documents()
        self.reopen = None

    def highlighted(self) -> Collection | None:
        table = self.query_one("#collections", DataTable)
        if not self.collections or not 0 <= table.cursor_row < len(self.collections):
            return None
        return self.collections[table.cursor_row]

    @on(DataTable.RowHighlighted, "#collections")
    def _hint(self) -> None:
        c = self.highlighted()
        if c is not None and c is not self.shown:
            counts = f" ({c.counts()})" if c.counts() else ""
            self.query_one("#documents-title", Static).update(f"{c.name}{counts} — enter lists its documents")

    @on(DataTable.RowSelected, "#collections")
    def _row_selected(self) -> None:
        self.action_documents()

    def action_documents(self) -> None:
        """List the highlighted collection's documents below, then fill in their details."""
        c = self.highlighted()
        if c is None:
            return
        self.shown = c
        self.query_one("#documents-title", Static).update(
            f"Documents of {c.name}" + (f" ({c.counts()})" if c.counts() else "")
            + ("" if c.docs else " — none yet: `paperpilot ingest PATH --collection " + c.name + "`"))
        docs = self.query_one("#documents", DataTable)
        docs.clear()
        for doc_id, title in c.docs:
            known = self.details.get(doc_id, {})
            docs.add_row(title, *(_cell(known.get(k, "…")) for k in ("year", "pages", "chunk_count")), key=doc_id)
        if c.docs:
            docs.focus()
        self._status(f"{c.name}: {len(c.docs)} document(s) · u use this collection for questions · d remove the "
                     "document · esc back")
        self._fill_details(c)

    @work(exclusive=True, group="collection-documents")
    async def _fill_details(self, c: Collection) -> None:
        summary = getattr(self.hub, "get_document_summary", None)
        docs = self.query_one("#documents", DataTable)
        for doc_id, _ in c.docs:
            if doc_id not in self.details:
                try:
                    res = await summary(doc_id, c.name) if summary is not None and doc_id else None
                    data = getattr(res, "structured", None)
                    self.details[doc_id] = data if isinstance(data, dict) else {}
                except Exception:  # noqa: BLE001 - one document's details missing: its row says "—"
                    self.details[doc_id] = {}
            if self.shown is not c or doc_id not in docs.rows:
                return
            for key in ("year", "pages", "chunk_count"):
                docs.update_cell(doc_id, "chunks" if key == "chunk_count" else key, _cell(self.details[doc_id].get(key)))

    def action_use(self) -> None:
        """Answer the next questions from the highlighted collection (or the one whose documents are shown)."""
        docs_focused = self.query_one("#documents", DataTable).has_focus
        c = self.shown if docs_focused and self.shown is not None else self.highlighted()
        if c is None:
            return
        if self.app.use_collection(c.name):
            self.app.notify(f"questions are now answered from the collection {c.name}", timeout=4)
            self.app.pop_screen()  # back to the question box, what it holds kept
            self.app.main_screen.action_focus_input()

    @work(exclusive=True, group="collection-remove")
    async def action_remove_document(self) -> None:
        """Remove the highlighted document of the listed collection, once the user says yes."""
        from paperpilot_tui.screens.dialogs import ConfirmScreen

        docs = self.query_one("#documents", DataTable)
        c = self.shown
        if c is None or not docs.has_focus or not 0 <= docs.cursor_row < len(c.docs):
            self._status("open a collection (enter) and highlight one of its documents to remove it")
            return
        doc_id, title = c.docs[docs.cursor_row]
        if not hasattr(self.hub, "remove_document"):
            self._status("this knowledge hub cannot remove documents")
            return
        if not await self.app.push_screen_wait(ConfirmScreen(
                f"Remove {title} from {c.name}?\n\nIts chunks, vectors and keyword entries are deleted; "
                "ingest the file again to bring it back.")):
            return
        try:
            await self.hub.remove_document(doc_id, c.name)
        except Exception as exc:  # noqa: BLE001 - a tool error (unknown id, a hub without the tool): one line
            self._status(f"could not remove {title}: {one_line(exc)}")
            return
        self.details.pop(doc_id, None)
        self.app.notify(f"removed {title} from {c.name}", timeout=4)
        self.reopen = c.name
        self.app.slash.changed()  # completion, and this screen, list the collection again

    def action_dismiss_screen(self) -> None:
        docs = self.query_one("#documents", DataTable)
        if docs.has_focus:  # from the documents back to the collections first
            self.query_one("#collections", DataTable).focus()
            return
        self.app.pop_screen()
