"""A ``get_lineage`` result drawn as text: a time-ordered graph (one column per year, one row per
paper, an arrow from each cited paper's column to the paper that cites it) when the screen is wide
enough, else a list (year, paper, what it cites). One paper is selected; the widget moves the
selection with the arrow keys and says which paper enter should open.

Graph row of a paper that cites papers of 2014 and 2016 (``●`` marks a cited paper's column)::

    2014                2016                2018
    ●───────────────────●──────────────────▶[3] Deep Quokka Attention at…  ◀ 1, 2
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Static

GRAPH_MIN_WIDTH = 140  # narrower than this, the lineage is a list
MAX_COLUMN = 40
LAST_COLUMN = 44  # kept for the newest year's column, whose rows carry the longest arrows


def numbered(lineage: dict[str, Any]) -> tuple[list[dict], dict[str, list[int]]]:
    """The papers in year order (as the hub sent them) and, by doc id, the numbers (1-based) of the
    papers each cites."""
    papers = list(lineage.get("papers") or [])
    index = {p["doc_id"]: i for i, p in enumerate(papers, 1)}
    cites: dict[str, list[int]] = {p["doc_id"]: [] for p in papers}
    for e in lineage.get("edges") or []:
        if e.get("citing") in cites and e.get("cited") in index:
            cites[e["citing"]].append(index[e["cited"]])
    return papers, {k: sorted(v) for k, v in cites.items()}


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def render_list(lineage: dict[str, Any], width: int, selected: int) -> Text:
    """One line a paper: ``2014  [1] Title  ◀ 2, 3`` (the numbers of the papers it cites)."""
    papers, cites = numbered(lineage)
    out = Text(no_wrap=True, overflow="ellipsis")
    for i, p in enumerate(papers, 1):
        refs = cites[p["doc_id"]]
        tail = f"  ◀ {', '.join(map(str, refs))}" if refs else ""
        head = f"{p.get('year') or '  ? '}  [{i}] "
        line = head + _clip(p.get("title") or p["doc_id"], max(8, width - len(head) - len(tail) - 1)) + tail
        out.append(line, style="reverse bold" if i - 1 == selected else "")
        out.append("\n")
    return out


def render_graph(lineage: dict[str, Any], width: int, selected: int) -> Text:
    """Year columns across, one row a paper (oldest first), cite arrows from each cited paper's column."""
    papers, cites = numbered(lineage)
    years = sorted({p.get("year") or 0 for p in papers})
    last = min(LAST_COLUMN, width // 3) if len(years) > 1 else 0  # the newest papers' titles need the room
    col = max(12, min(MAX_COLUMN, (width - 2 - last) // max(1, len(years) - (1 if last else 0))))
    x = {y: i * col for i, y in enumerate(years)}
    out = Text(no_wrap=True, overflow="ellipsis")
    out.append("".join(f"{y or '?':<{col}}" for y in years).rstrip() + "\n", style="bold")
    out.append("─" * min(width - 1, col * len(years)) + "\n", style="dim")
    for i, p in enumerate(papers, 1):
        here = x[p.get("year") or 0]
        sources = [x[papers[n - 1].get("year") or 0] for n in cites[p["doc_id"]]]
        row = [" "] * here
        if sources:
            start = min(sources)
            for c in range(start, here):
                row[c] = "─"
            for c in sources:
                if c < here:
                    row[c] = "●"
            if start < here:
                row[here - 1] = "▶"
        refs = cites[p["doc_id"]]
        tail = f"  ◀ {', '.join(map(str, refs))}" if refs else ""
        label = f"[{i}] " + _clip(p.get("title") or p["doc_id"], max(8, min(width - here - len(tail) - 5, col * 2)))
        out.append("".join(row), style="cyan")
        out.append(label, style="reverse bold" if i - 1 == selected else "bold")
        out.append(tail + "\n", style="dim")
    return out


class LineageView(Static, can_focus=True):
    """The lineage, as a graph at :data:`GRAPH_MIN_WIDTH` columns and more, else as a list."""

    BINDINGS = [Binding("down,j", "move(1)", "Next paper", show=False),
                Binding("up,k", "move(-1)", "Previous paper", show=False)]  # enter: the screen's lineage_sources

    class Opened(Message):
        """Enter on a paper."""

        def __init__(self, paper: dict[str, Any]) -> None:
            super().__init__()
            self.paper = paper

    class Moved(Message):
        def __init__(self, paper: dict[str, Any]) -> None:
            super().__init__()
            self.paper = paper

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.lineage: dict[str, Any] = {}
        self.selected = 0

    @property
    def as_graph(self) -> bool:
        return self.app.size.width >= GRAPH_MIN_WIDTH

    def show(self, lineage: dict[str, Any]) -> None:
        self.lineage, self.selected = lineage, 0
        self._draw()
        if self.papers:
            self.post_message(self.Moved(self.papers[0]))

    @property
    def papers(self) -> list[dict[str, Any]]:
        return list(self.lineage.get("papers") or [])

    def on_resize(self) -> None:
        self._draw()

    def _draw(self) -> None:
        width = max(20, self.size.width or self.app.size.width)
        draw = render_graph if self.as_graph else render_list
        self.update(draw(self.lineage, width, self.selected) if self.papers else Text("no papers"))

    def action_move(self, step: int) -> None:
        if self.papers:
            self.selected = (self.selected + step) % len(self.papers)
            self._draw()
            self.post_message(self.Moved(self.papers[self.selected]))

    def action_open(self) -> None:
        if self.papers:
            self.post_message(self.Opened(self.papers[self.selected]))
