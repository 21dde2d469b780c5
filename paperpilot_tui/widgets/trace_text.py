"""Trace-pane text for agent events: core's one describer (:mod:`core.tracing.describe`), cut to the
pane's width, with the event's own fields as details where the describer has no body lines."""

from __future__ import annotations

from typing import Any

from core.events import (
    AnswerReady, ClarificationAsked, CriticVerdictIssued, Event, IntentClassified, LLMCall, MemoryRecalled,
    MemoryWritten, NodeFinished, Notice, OutlineEdited, OutlineProposed, PlanUpdated, PointSearched, ReplanDecided,
    ResearchStageChanged, ResearchStarted, ResearchWaiting, RetrievalFinished, RetrievalStarted, RetryStarted,
    ReviewFinished, SlotsFilled, SufficiencyJudged, ThoughtEmitted, WebSearched,
)
from core.tracing.describe import describe as describe_line
from core.tracing.describe import details
from core.tracing.describe import fmt_ms as _fmt_ms

# the semantic events that get a trace row of their own (nodes and searches have theirs)
ROWS: tuple[type, ...] = (IntentClassified, SlotsFilled, PlanUpdated, ThoughtEmitted, SufficiencyJudged,
                          ReplanDecided, CriticVerdictIssued, RetryStarted, MemoryRecalled, MemoryWritten, LLMCall,
                          Notice, WebSearched, AnswerReady,
                          # deep research: each step of the run
                          ResearchStarted, ResearchStageChanged, ClarificationAsked, OutlineProposed, OutlineEdited,
                          PointSearched, ResearchWaiting, ReviewFinished)
_PLUMBING = {"kind", "ts", "turn_id", "node", "graph"}


def fmt_ms(ms: float | None) -> str:
    return "" if ms is None else _fmt_ms(ms)


def short(text: str, n: int = 60) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"


def detail_text(detail: dict[str, Any]) -> str:
    """Event fields as readable lines: lists as bullets, records as ``key value · key value``."""
    lines = []
    for key, value in detail.items():
        if isinstance(value, list):
            lines.append(f"{key}:")
            lines += [f"  • {_value(v, 200)}" for v in value]
        else:
            lines.append(f"{key}: {_value(value, 400)}")
    return "\n".join(lines)


def _value(value: Any, width: int) -> str:
    """One value as words: numbers trimmed, records flattened, never a Python or JSON repr."""
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}"
    if isinstance(value, dict):
        parts = [f"{k} {_value(v, 60)}" for k, v in value.items() if v not in (None, "", [], {})]
        return short(" · ".join(parts), width)
    if isinstance(value, list):
        return short(", ".join(_value(v, 60) for v in value), width)
    return short(str(value), width)


def _fields(ev: Event) -> str:
    data = ev.model_dump(mode="json", exclude=_PLUMBING)
    flat: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict):  # a nested value type (intent, verdict, judgement): its fields
            flat.update({k: v for k, v in value.items() if v not in (None, "", [], {})})
        elif value not in (None, "", [], {}):
            flat[key] = value
    return detail_text(flat)


def node_title(ev: NodeFinished) -> str:
    return short(describe_line(ev), 52)


def describe(ev: Event) -> tuple[str, str] | None:
    """(title, details) for the semantic events shown as their own trace rows, else None."""
    if not isinstance(ev, ROWS):
        return None
    body = details(ev)
    return short(describe_line(ev), 52), "\n".join(body) if body else _fields(ev)


def retrieval_title(ev: RetrievalStarted | RetrievalFinished, finished: bool) -> str:
    # the query is what gives way in a narrow pane, so the count and the time stay visible
    return short(describe_line(ev.model_copy(update={"query": short(ev.query, 12)})), 52)


def retrieval_details(ev: RetrievalStarted | RetrievalFinished) -> str:
    return _fields(ev)
