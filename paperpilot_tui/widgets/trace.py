"""Trace pane: the turn's reasoning steps as they happen, each with its duration; a step expands
(enter or click) to show its details; a totals line counts LLM calls, tokens and time per turn."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Collapsible, Static

from core.events import (
    DraftReady, Event, LLMCall, NodeFinished, NodeStarted, Notice, RetrievalFinished, RetrievalStarted, SourcesFound,
    TokenDelta, TurnFailed, TurnFinished, TurnStarted,
)
from core.types import node_path
from paperpilot_tui.widgets.trace_text import (
    describe, detail_text, fmt_ms, node_title, retrieval_details, retrieval_title, short,
)


class TraceStep(Collapsible):
    """One step; the title is its one-line summary, the body its details."""

    DEFAULT_CSS = """
    TraceStep { padding: 0; margin: 0; border: none; background: transparent; }
    TraceStep > Contents { padding: 0 0 0 4; height: auto; }
    TraceStep CollapsibleTitle { padding: 0; width: 100%; }
    TraceStep.-failed CollapsibleTitle { color: $error; text-style: bold; }
    TraceStep.-sub CollapsibleTitle { padding-left: 2; color: $text-muted; }
    TraceStep.-header CollapsibleTitle { text-style: bold; color: $accent; }
    TraceStep.-running CollapsibleTitle { color: $warning; }
    """

    def __init__(self, title: str, details: str = "", *, classes: str = "") -> None:
        self._body = Static(details or "(no details)", markup=False)
        # titles are plain text (a search for "[QLoRA]" is not markup)
        super().__init__(self._body, title=Content(title), collapsed=True, classes=classes,
                         collapsed_symbol="▸", expanded_symbol="▾")

    def set(self, title: str, details: str | None = None) -> None:
        self.title = Content(title)
        if details is not None:
            self._body.update(details or "(no details)")


class TraceList(VerticalScroll):
    """Anchored: follows new steps until the user scrolls up; a new turn re-anchors it."""

    DEFAULT_CSS = """
    TraceList { layout: stream; height: 1fr; scrollbar-size-vertical: 1; }
    """

    def on_mount(self) -> None:
        self.anchor()


class TracePane(Vertical):
    """Steps of the session's recent turns (the last ``KEEP_TURNS``; older ones stay in the trace
    store, see F4 replay and ``paperpilot traces``), newest at the bottom, plus the current turn's totals."""

    KEEP_TURNS = 12

    DEFAULT_CSS = """
    TracePane #trace-totals { height: 1; background: $boost; padding: 0 1; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._open: dict[tuple, TraceStep] = {}
        self._retrievals: dict[tuple, TraceStep] = {}
        self._start_ts = 0.0
        self._calls = 0
        self._tokens = 0

    def compose(self) -> ComposeResult:
        yield TraceList(id="trace-list")
        yield Static("no turn yet", id="trace-totals")

    @property
    def steps(self) -> list[TraceStep]:
        return list(self.query(TraceStep))

    def clear(self) -> None:
        self.query_one(TraceList).remove_children()
        self.query_one("#trace-totals", Static).update("no turn yet")

    def _add(self, title: str, details: str = "", classes: str = "") -> TraceStep:
        step = TraceStep(title, details, classes=classes)
        log = self.query_one(TraceList)
        log.mount(step)
        return step

    def _drop_old_turns(self) -> None:
        """Keep at most ``KEEP_TURNS - 1`` earlier turns so a long session stays light to render."""
        steps = list(self.query_one(TraceList).children)
        starts = [i for i, w in enumerate(steps) if w.has_class("-header")]
        if len(starts) >= self.KEEP_TURNS:
            cut = starts[len(starts) - self.KEEP_TURNS + 1]
            self.query_one(TraceList).remove_children(steps[:cut])

    def _totals(self, ev: Event, done: str = "") -> None:
        elapsed = max(ev.ts - self._start_ts, 0.0) * 1000
        text = f"LLM calls {self._calls} · tokens {self._tokens} · time {fmt_ms(elapsed)}"
        self.query_one("#trace-totals", Static).update(text + (f" · {done}" if done else ""))

    def apply(self, ev: Event) -> None:
        match ev:
            case TokenDelta() | DraftReady() | SourcesFound():
                return
            case TurnStarted():
                self._drop_old_turns()
                self._open.clear()
                self._retrievals.clear()
                self._start_ts, self._calls, self._tokens = ev.ts, 0, 0
                self.query_one(TraceList).anchor()
                self._add(f"▶ {short(ev.question, 56)}", f"question: {ev.question}\nsession: {ev.session_id}",
                          classes="-header")
            case NodeStarted():
                sub = " -sub" if ev.graph != "main" else ""
                self._open[(ev.graph, ev.node)] = self._add(f"… {node_path(ev.node, ev.graph)}", "",
                                                            classes="-running" + sub)
            case NodeFinished():
                step = self._open.pop((ev.graph, ev.node), None)
                if step is None:
                    step = self._add("", "", classes="-sub" if ev.graph != "main" else "")
                step.remove_class("-running")
                step.set_class(not ev.ok, "-failed")
                step.set(node_title(ev), "\n".join(x for x in (ev.summary, detail_text(ev.detail)) if x))
            case RetrievalStarted():
                self._retrievals[(ev.query, ev.entity)] = self._add(
                    retrieval_title(ev, False), retrieval_details(ev), classes="-sub -running")
            case RetrievalFinished():
                step = self._retrievals.pop((ev.query, ev.entity), None) or self._add("", classes="-sub")
                step.remove_class("-running")
                step.set_class(bool(ev.error), "-failed")
                step.set(retrieval_title(ev, True), retrieval_details(ev))
            case TurnFinished(result=r):
                self._calls, self._tokens = r.llm_calls, r.tokens.get("total", self._tokens)
                self._totals(ev, f"{len(r.sources)} source(s)")
                return
            case TurnFailed():
                for step in self._open.values():
                    step.remove_class("-running")
                    step.add_class("-failed")
                where = f" at {ev.node}" if ev.node else ""
                label = "cancelled" if ev.category == "cancelled" else f"failed{where}"
                self._add(f"✗ turn {label}: {short(ev.error, 44)}", f"{ev.category}: {ev.error}", classes="-failed")
                self._totals(ev, label)
                return
            case _:
                if isinstance(ev, LLMCall):
                    self._calls += 1
                    self._tokens += ev.prompt_tokens + ev.completion_tokens
                text = describe(ev)
                if text is None:
                    return
                title, details = text
                failed = isinstance(ev, Notice) and ev.level == "error"
                self._add(title, details, classes="-sub" + (" -failed" if failed else ""))
        if self._start_ts:
            self._totals(ev)
