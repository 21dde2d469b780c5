"""One-line titles and detail text for trace steps, from agent events (pure functions)."""

from __future__ import annotations

import json
from typing import Any

from core.events import (
    CriticVerdictIssued, Event, IntentClassified, LLMCall, MemoryRecalled, MemoryWritten, NodeFinished, Notice,
    PlanUpdated, RetrievalFinished, RetrievalStarted, RetryStarted, SlotsFilled, SufficiencyJudged, ThoughtEmitted,
)
from core.types import node_path


def fmt_ms(ms: float | None) -> str:
    if ms is None:
        return ""
    if ms >= 1000:
        return f"{ms / 1000:.2f} s"
    return f"{ms:.0f} ms"


def short(text: str, n: int = 60) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"


def detail_text(detail: dict[str, Any]) -> str:
    lines = []
    for key, value in detail.items():
        if isinstance(value, list):
            lines.append(f"{key}:")
            lines += [f"  • {short(v, 200) if isinstance(v, str) else json.dumps(v, default=str)}" for v in value]
        elif isinstance(value, dict):
            lines.append(f"{key}: {json.dumps(value, default=str, ensure_ascii=False)}")
        else:
            lines.append(f"{key}: {value}")
    return "\n".join(lines)


def node_title(ev: NodeFinished) -> str:
    mark = "✓" if ev.ok else "✗"
    summary = f"  {ev.summary}" if ev.summary else ""
    return short(f"{mark} {node_path(ev.node, ev.graph)}  {fmt_ms(ev.duration_ms)}{summary}", 54)


def describe(ev: Event) -> tuple[str, str] | None:
    """(title, details) for the semantic events shown as their own trace rows, else None.

    SEAM: the app's one event-to-text function; when ``core.tracing`` has ``describe(event)``
    this becomes a call to it (so ``ask``, ``traces show`` and the app say the same thing).
    """
    match ev:
        case IntentClassified(intent=i):
            return (f"intent {i.type} {i.confidence:.2f} via {i.router}  {fmt_ms(ev.latency_ms)}",
                    f"type: {i.type}\nconfidence: {i.confidence:.3f}\nrouter: {i.router}")
        case SlotsFilled(intent=i):
            ents = ", ".join(i.entities) or "—"
            return (f"slots: {short(ents, 40)}",
                    f"entities: {ents}\ndimensions: {', '.join(i.dimensions) or '—'}\n"
                    f"constraints: {json.dumps(i.constraints, ensure_ascii=False)}\nquery: {i.reformulated_query}")
        case PlanUpdated():
            rev = f" r{ev.revision}" if ev.revision else ""
            body = "\n".join(f"{n}. {q}" for n, q in enumerate(ev.sub_questions, 1))
            return (f"plan{rev}: {len(ev.sub_questions)} step(s)  {short(ev.reason, 36)}",
                    body + (f"\nreason: {ev.reason}" if ev.reason else ""))
        case ThoughtEmitted():
            return (f"think #{ev.step}: {short(ev.content, 44)}",
                    ev.content + (f"\nquery: {ev.query}" if ev.query else ""))
        case SufficiencyJudged(judgement=j):
            return (f"observe #{ev.step}: {j.level}",
                    f"level: {j.level}\nreason: {j.reason}\nmissing: {', '.join(j.missing) or '—'}")
        case CriticVerdictIssued(verdict=v):
            verdict = "pass" if v.passed else "fail"
            forced = " (forced)" if v.forced else ""
            return (f"critic {v.score:.1f}/10 {verdict}{forced}  c={v.completeness:.2f} f={v.faithfulness:.2f}",
                    f"feedback: {v.feedback}\nissues: {'; '.join(v.issues) or '—'}\n"
                    f"suggested queries: {'; '.join(v.suggested_queries) or '—'}")
        case RetryStarted():
            return (f"↻ retry {ev.attempt}: {short(ev.feedback, 44)}",
                    f"feedback: {ev.feedback}\nextra queries: {'; '.join(ev.queries) or '—'}")
        case MemoryRecalled():
            return (f"memory: {len(ev.facts)} fact(s) recalled", "\n".join(f"• {f}" for f in ev.facts))
        case MemoryWritten(facts=[]):
            return (f"memory: nothing saved ({short(ev.skipped_reason or 'no facts', 40)})", ev.skipped_reason)
        case MemoryWritten():
            return (f"memory: +{ev.added} new, {ev.updated} updated", "\n".join(f"• {f}" for f in ev.facts))
        case LLMCall():
            return (f"llm {ev.purpose}: {ev.prompt_tokens}+{ev.completion_tokens} tok  {fmt_ms(ev.duration_ms)}",
                    f"model: {ev.model}\npurpose: {ev.purpose}\nprompt tokens: {ev.prompt_tokens}\n"
                    f"completion tokens: {ev.completion_tokens}")
        case Notice():
            mark = {"error": "✗", "warning": "⚠"}.get(ev.level, "ℹ")
            return (f"{mark} {short(ev.message, 56)}", f"{ev.level} from {ev.source or 'agent'}: {ev.message}")
    return None


def retrieval_title(ev: RetrievalStarted | RetrievalFinished, finished: bool) -> str:
    who = f"∥ {ev.entity}: " if ev.entity else "⇢ "
    if not finished:
        return f"{who}{short(ev.query, 40)} …"
    if ev.error:
        return f"✗ {who}{short(ev.query, 30)}  {short(ev.error, 30)}"
    return f"{who}{short(ev.query, 34)} → {len(ev.chunk_ids)} chunk(s)  {fmt_ms(ev.duration_ms)}"


def retrieval_details(ev: RetrievalStarted | RetrievalFinished) -> str:
    lines = [f"query: {ev.query}", f"entity: {ev.entity or '—'}"]
    if isinstance(ev, RetrievalFinished) and ev.chunk_ids:
        lines.append("chunks: " + ", ".join(ev.chunk_ids))
    if isinstance(ev, RetrievalFinished) and ev.error:
        lines.append(f"error: {ev.error}")
    return "\n".join(lines)
