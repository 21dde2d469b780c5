"""Lineage: the papers of the library on a topic, oldest first, with the cite edges among them.

The hub orders the topic's papers by year and finds which cites which (``get_lineage``,
:mod:`core.hub.lineage`). At 140 columns and more they are drawn as a graph (a column a year, a
row a paper, an arrow from each cited paper's column to the paper citing it); narrower, as a list.
Arrows (or j/k) move between papers; enter opens the paper's sources below: its passage on the
topic (section, page) and the sentences in which it cites, or is cited by, the other papers.
The topic is the last question asked (alt+l after an exploratory answer), or one typed in.
"""

from __future__ import annotations

from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from paperpilot_tui.actions import bindings
from paperpilot_tui.runtime import one_line
from paperpilot_tui.widgets.lineage_graph import LineageView, numbered


def paper_summary(lineage: dict[str, Any], paper: dict[str, Any]) -> str:
    """Who wrote it, when, and what it cites / is cited by among the lineage's papers."""
    papers, cites = numbered(lineage)
    number = {p["doc_id"]: i for i, p in enumerate(papers, 1)}
    cited_by = [number[d] for d, refs in cites.items() if number[paper["doc_id"]] in refs]
    who = ", ".join(paper.get("authors") or []) or "authors unknown"
    lines = [f"[{number[paper['doc_id']]}] {paper.get('title')} · {paper.get('year') or 'year unknown'} · {who}"]
    lines.append("cites " + (", ".join(f"[{n}]" for n in cites[paper["doc_id"]]) or "none of these")
                 + " · cited by " + (", ".join(f"[{n}]" for n in cited_by) or "none of these")
                 + " · enter: its sources")
    return "\n".join(lines)


def paper_sources(lineage: dict[str, Any], paper: dict[str, Any]) -> str:
    """The paper's sources: its passage on the topic and the sentences of the cite edges it is in."""
    titles = {p["doc_id"]: p.get("title") or p["doc_id"] for p in lineage.get("papers") or []}
    where = " · ".join(x for x in (paper.get("breadcrumb") or "", f"p. {paper['page']}" if paper.get("page") else "",
                                   paper.get("source") or "") if x)
    lines = [f"{paper.get('title')} ({paper.get('year') or '?'})", where, "", paper.get("passage") or "(no passage)"]
    for e in lineage.get("edges") or []:
        if paper["doc_id"] not in (e.get("citing"), e.get("cited")):
            continue
        verb = f"cites {titles.get(e['cited'], e['cited'])}" if e["citing"] == paper["doc_id"] else \
            f"is cited by {titles.get(e['citing'], e['citing'])}"
        said = f": “{e['sentence']}”" if e.get("sentence") else f" (reference: {e.get('reference', '')})"
        lines += ["", f"It {verb} · confidence {e.get('confidence', 0):.2f}{said}"]
    return "\n".join(lines)


class LineageScreen(Screen):
    CSS_PATH = "browsers.tcss"
    BINDINGS = bindings("lineage", "dialog")
    HELP_SCOPES = ("lineage", "dialog", "app")
    HELP_TITLE = "Lineage"
    DEFAULT_CSS = """
    #lineage-scroll { height: 1fr; padding: 0 1; }
    #lineage-detail { height: auto; max-height: 45%; border-top: solid $primary 40%; padding: 0 1; }
    """

    def __init__(self, topic: str) -> None:
        super().__init__(id="lineage-screen")
        self.topic = topic
        self.lineage: dict[str, Any] = {}

    def compose(self) -> ComposeResult:
        yield Static(f"Lineage — {self.topic}", classes="browser-title", markup=False)
        with VerticalScroll(id="lineage-scroll"):
            yield LineageView(id="lineage-view")
        with VerticalScroll(id="lineage-detail"):
            yield Static("", id="lineage-paper", markup=False)
        yield Static("", id="browser-status")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(LineageView).focus()
        self.reload()

    @work(exclusive=True, group="lineage")
    async def reload(self) -> None:
        status = self.query_one("#browser-status", Static)
        agent = self.app.session.agent
        hub = getattr(agent, "hub", None)
        if hub is None or not hasattr(hub, "get_lineage"):
            status.update("the agent is not running yet" if agent is None else "this knowledge hub has no citation graph")
            return
        collection = getattr(agent, "collection", "") or self.app.settings.mcp.collection
        status.update(f"tracing {self.topic!r} in {collection} …")
        try:
            res = await hub.get_lineage(topic=self.topic, collection=collection)
        except Exception as exc:  # noqa: BLE001 - an upstream hub has no get_lineage: said, not raised
            status.update(f"no lineage: {one_line(exc)}")
            return
        data = res.structured or {}
        self.lineage = data.get("result", data)
        self.query_one(LineageView).show(self.lineage)
        n, e = len(self.lineage.get("papers") or []), len(self.lineage.get("edges") or [])
        status.update(f"{n} paper(s), {e} cite edge(s) in {collection} · ↑↓ move · enter sources · esc back")

    @on(LineageView.Moved)
    def _moved(self, event: LineageView.Moved) -> None:
        self.query_one("#lineage-paper", Static).update(paper_summary(self.lineage, event.paper))

    @on(LineageView.Opened)
    def _opened(self, event: LineageView.Opened) -> None:
        self.query_one("#lineage-paper", Static).update(paper_sources(self.lineage, event.paper))

    def action_open_paper(self) -> None:
        self.query_one(LineageView).action_open()

    def action_dismiss_screen(self) -> None:
        self.app.pop_screen()
