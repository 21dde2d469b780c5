"""Deep-research widgets in the chat log: per-point search progress and the review's sources by point.

:class:`ResearchProgress` shows every knowledge point of the confirmed outline with its state
(waiting, searching, kept k of m, error) and the n/N of points searched, folded from
``PointSearched`` events. :class:`ResearchSources` lists, under one collapsible per point, the
review's numbered sources kept for that point (``ReviewFinished.review``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Collapsible, Static

from core.events import PointSearched
from core.research.types import Outline, ResearchReview

MARKS = {"waiting": "·", "searching": "…", "done": "✓", "empty": "○", "error": "✗"}


@dataclass
class PointState:
    point_id: str
    topic: str
    importance: str
    state: str = "waiting"  # waiting | searching | done | empty | error
    kept: int = 0
    candidates: int = 0
    duplicates: int = 0
    error: str = ""

    def line(self) -> str:
        match self.state:
            case "done" | "empty":
                dup = f", {self.duplicates} kept under another point" if self.duplicates else ""
                return f"kept {self.kept} of {self.candidates}{dup}"
            case "error":
                return f"error: {self.error}"
        return self.state


class ResearchProgress(Static):
    """n/N knowledge points searched, and each point's state."""

    DEFAULT_CSS = """
    ResearchProgress { padding: 0 1; margin: 1 0 0 0; border-left: thick $accent 60%; }
    """

    def __init__(self, outline: Outline, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.points = [PointState(p.id, p.topic, p.importance) for p in outline.knowledge_points]
        self.phase = "waiting to search"

    @property
    def searched(self) -> int:
        return sum(p.state in ("done", "empty", "error") for p in self.points)

    def on_mount(self) -> None:
        self.refresh_view()

    def start_search(self) -> None:
        """The points are searched in parallel: every one not finished is now searching."""
        self.phase = "searching"
        for p in self.points:
            if p.state == "waiting":
                p.state = "searching"
        self.refresh_view()

    def point_searched(self, ev: PointSearched) -> None:
        if self.phase == "waiting to search":
            self.start_search()
        p = next((p for p in self.points if p.point_id == ev.point_id), None)
        if p is None:  # a point the core added (e.g. a retry under another id)
            p = PointState(ev.point_id, ev.topic, "medium")
            self.points.append(p)
        p.kept, p.candidates, p.duplicates = ev.kept, ev.candidates, ev.duplicates
        p.state, p.error = ("error", ev.error) if ev.error else ("done" if ev.kept else "empty", "")
        self.refresh_view()

    def set_phase(self, phase: str) -> None:
        """``writing the review``, ``done``, ``failed`` …: the header's state after the search."""
        self.phase = phase
        if phase in ("failed", "cancelled"):
            for p in self.points:
                if p.state == "searching":
                    p.state = "waiting"
        self.refresh_view()

    def refresh_view(self) -> None:
        text = Text()
        text.append(f"Knowledge points searched {self.searched}/{len(self.points)}", style="bold")
        text.append(f"  · {self.phase}", style="dim")
        for p in self.points:
            style = {"error": "red", "searching": "bold", "waiting": "dim", "empty": "yellow"}.get(p.state, "")
            text.append(f"\n{MARKS[p.state]} {p.point_id} ", style=style)
            text.append(f"[{p.importance}] ", style="dim")
            text.append(p.topic)
            text.append(f" — {p.line()}", style=style or "green")
        self.update(text)


def source_line(source: Any) -> str:
    """``[n] title — breadcrumb · p. X`` for one of the review's sources."""
    title = source.title or source.doc_id or source.source or source.chunk_id
    where = " · ".join(x for x in (source.breadcrumb, f"p. {source.page}" if source.page is not None else "") if x)
    return f"[{source.index}] {title}" + (f" — {where}" if where else "")


class ResearchSources(Vertical):
    """The review's sources, one collapsible per knowledge point (collapsed; enter or click expands)."""

    DEFAULT_CSS = """
    ResearchSources { height: auto; margin: 1 0 0 0; padding: 0 1; }
    ResearchSources .research-sources-title { text-style: bold; }
    ResearchSources .research-gaps { color: $warning; }
    ResearchSources Collapsible { padding-bottom: 0; border-top: none; }
    ResearchSources Collapsible Contents { padding: 0 0 0 2; }
    """

    def __init__(self, review: ResearchReview, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.review = review

    def compose(self) -> ComposeResult:
        review = self.review
        by_index = {s.index: s for s in review.sources}
        yield Static(f"Sources by knowledge point ({len(review.sources)} in all)",
                     classes="research-sources-title", markup=False)
        if not review.points:
            yield Static("No knowledge point kept a source.", markup=False)
        for n, point in enumerate(review.points, 1):
            found = [by_index[n] for n in point.source_indices if n in by_index]
            state = "" if point.covered else " · not covered"
            lines = [source_line(s) for s in found] or ["no source kept for this point"]
            for chunk, others in point.also_under.items():
                lines.append(f"(chunk {chunk} also found by {', '.join(others)})")
            yield Collapsible(Static("\n".join(lines), markup=False),
                              title=f"{point.point_id} {point.topic} · {len(found)} source(s){state}",
                              collapsed=True, id=f"point-sources-{n}")
        notes = [f"gap: {g}" for g in review.gaps]
        notes += [f"still uncovered (high importance): {u}" for u in review.uncovered]
        if notes:
            yield Static("\n".join(notes), classes="research-gaps", markup=False)
