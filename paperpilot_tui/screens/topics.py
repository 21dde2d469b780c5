"""Topics: the collection's subjects as the hub computed them, their documents, and asking within one.

The hub clusters the collection's documents and labels each cluster by its keyphrases
(``list_topics``, :mod:`core.hub.topics`). The table lists the topics; below it, the highlighted
topic's keyphrases and documents with their scores. Enter goes back to the question box with
``In the topic "<label>": `` typed in, which slot filling scopes to that topic: the answer is
searched for only in its documents.
"""

from __future__ import annotations

from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from paperpilot_tui.actions import bindings
from paperpilot_tui.runtime import one_line


def scoped_question(label: str) -> str:
    """The start of a question that slot filling scopes to the topic ``label`` (:mod:`core.scope`)."""
    return f'In the topic "{label}": '


class TopicsScreen(Screen):
    CSS_PATH = "browsers.tcss"
    BINDINGS = bindings("topics", "dialog")
    HELP_SCOPES = ("topics", "dialog", "app")
    HELP_TITLE = "Topics"

    def __init__(self) -> None:
        super().__init__(id="topics-screen")
        self.topics: list[dict[str, Any]] = []
        self.collection = ""

    def compose(self) -> ComposeResult:
        yield Static("Topics — the collection's documents grouped by subject", classes="browser-title")
        yield DataTable(id="topics", cursor_type="row", zebra_stripes=True)
        yield Static("", id="topic-detail", markup=False)
        yield Static("", id="browser-status")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column("topic", key="label", width=34)
        table.add_column("docs", key="docs", width=4)
        table.add_column("keyphrases", key="keyphrases", width=70)
        table.focus()
        self.reload()

    @work(exclusive=True, group="topics")
    async def reload(self) -> None:
        status = self.query_one("#browser-status", Static)
        agent = self.app.session.agent
        hub = getattr(agent, "hub", None)
        if hub is None or not hasattr(hub, "list_topics"):
            status.update("the agent is not running yet" if agent is None else "this knowledge hub has no topics")
            return
        self.collection = getattr(agent, "collection", "") or self.app.settings.mcp.collection
        status.update(f"computing the topics of {self.collection} …")
        try:
            res = await hub.list_topics(self.collection)
        except Exception as exc:  # noqa: BLE001 - an upstream hub has no list_topics: said, not raised
            status.update(f"no topics: {one_line(exc)}")
            return
        self.topics = list((res.structured or {}).get("topics") or [])
        table = self.query_one(DataTable)
        table.clear()
        for t in self.topics:
            table.add_row(t["label"], str(t["document_count"]), ", ".join(t["keyphrases"]), key=t["topic_id"])
        status.update(f"{len(self.topics)} topic(s) in {self.collection} · enter ask within the topic · esc back")
        self._show_detail()

    def selected(self) -> dict[str, Any] | None:
        table = self.query_one(DataTable)
        if not self.topics or not 0 <= table.cursor_row < len(self.topics):
            return None
        return self.topics[table.cursor_row]

    @on(DataTable.RowHighlighted)
    def _show_detail(self) -> None:
        t = self.selected()
        detail = self.query_one("#topic-detail", Static)
        if t is None:
            detail.update("No topics yet: the hub computes them once the collection's documents are embedded.")
            return
        lines = [f"{t['label']}  (topic id {t['topic_id']}) · keyphrases: {', '.join(t['keyphrases'])}"]
        lines += [f"  {d['score']:.2f}  {d['title']}  ({d['doc_id']})" for d in t["documents"]]
        lines.append(f"enter: ask within this topic — {scoped_question(t['label'])}…")
        detail.update("\n".join(lines))

    @on(DataTable.RowSelected)
    def _row_selected(self) -> None:
        self.action_ask_in_topic()

    def action_ask_in_topic(self) -> None:
        """Back to the question box, the question started as one scoped to this topic."""
        t = self.selected()
        if t is not None:
            self.app.ask_in_topic(scoped_question(t["label"]))

    def action_dismiss_screen(self) -> None:
        self.app.pop_screen()
