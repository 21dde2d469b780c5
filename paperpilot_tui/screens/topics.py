"""Topics: the collection's subjects as the hub computed them, their documents, and asking within one.

The hub clusters the collection's documents and labels each cluster by its keyphrases
(``list_topics``, :mod:`core.hub.topics`); a topic named with the LLM brain (``paperpilot hub
topics --name``) shows its name, its label beside it. The table lists the topics; below it, the
highlighted topic's keyphrases and documents with their scores. Enter goes back to the question
box with ``In the topic "<name or label>": `` typed in, which slot filling scopes to that topic:
the answer is searched for only in its documents.
"""

from __future__ import annotations

from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from paperpilot_tui.actions import bindings
from paperpilot_tui.runtime import one_line
from paperpilot_tui.widgets.table_fit import fit_column


def shown(topic: dict[str, Any]) -> str:
    """What names a ``list_topics`` topic: its given name, else its keyphrase label."""
    return topic.get("name") or topic["label"]


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
        self.on_resize()
        table.focus()
        self.reload()

    def on_resize(self) -> None:
        """The keyphrases take what the topic and docs columns leave of the screen."""
        fit_column(self.query_one(DataTable), "keyphrases", self.size.width, most=70)

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
            table.add_row(shown(t), str(t["document_count"]), ", ".join(t["keyphrases"]), key=t["topic_id"])
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
        label = f"label {t['label']}, " if t.get("name") else ""
        lines = [f"{shown(t)}  ({label}topic id {t['topic_id']}) · keyphrases: {', '.join(t['keyphrases'])}"]
        lines += [f"  {d['score']:.2f}  {d['title']}  ({d['doc_id']})" for d in t["documents"]]
        lines.append(f"enter: ask within this topic — {scoped_question(shown(t))}…")
        detail.update("\n".join(lines))

    @on(DataTable.RowSelected)
    def _row_selected(self) -> None:
        self.action_ask_in_topic()

    def action_ask_in_topic(self) -> None:
        """Back to the question box, the question started as one scoped to this topic."""
        t = self.selected()
        if t is not None:
            self.app.ask_in_topic(scoped_question(shown(t)))

    def action_dismiss_screen(self) -> None:
        self.app.pop_screen()
