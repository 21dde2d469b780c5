"""What one event means, in words: the one describer the CLI, the trace store and the app share.

:func:`describe` gives one plain-text line for any event; :func:`details` the lines below it (plan
steps, recalled facts, the answer and its sources); :func:`node_summary` the line a node's
``NodeFinished`` carries, from the events the node emitted. No markup, no indentation: a renderer
adds those. Imports no LangGraph.
"""

from __future__ import annotations

from core.events import (
    AnswerReady, ClarificationAsked, CriticVerdictIssued, DraftReady, Event, IntentClassified, LLMCall,
    MemoryRecalled, MemoryWritten, NodeFinished, NodeStarted, Notice, OutlineEdited, OutlineProposed,
    PlanUpdated, PointSearched, ReplanDecided, ResearchStageChanged, ResearchStarted, ResearchWaiting,
    RetrievalFinished, RetrievalStarted, RetryStarted, ReviewFinished, SlotsFilled, SourcesFound,
    SufficiencyJudged, ThoughtEmitted, TokenDelta, TurnFailed, TurnFinished, TurnStarted, WebSearched,
)
from core.memory.text import shorten
from core.types import node_path

WIDTH = 110

# Streaming-only events: a finished trace's view skips them (the node's line comes when it finishes).
QUIET: tuple[type, ...] = (NodeStarted, TokenDelta, DraftReady, RetrievalStarted, SourcesFound)


def fmt_ms(value: float) -> str:
    return f"{value / 1000:.2f} s" if value >= 1000 else f"{value:.0f} ms"


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def describe(e: Event) -> str:
    """One line for one event (any event; see :data:`QUIET` for those a finished view skips)."""
    match e:
        case TurnStarted():
            hub = f", {e.hub}" if e.hub else ""
            return f"▶ {shorten(e.question, WIDTH)}  (session {e.session_id}, brain {e.brain}{hub})"
        case NodeStarted():
            return f"▸ {node_path(e.node, e.graph)}" + (f" #{e.attempt}" if e.attempt else "")
        case NodeFinished():
            retry = f" #{e.attempt}" if e.attempt else ""
            tail = f" — {shorten(e.summary, WIDTH - 40)}" if e.summary else ""
            return f"{'✓' if e.ok else '✗'} {node_path(e.node, e.graph)}{retry}  {fmt_ms(e.duration_ms)}{tail}"
        case IntentClassified():
            return f"intent: {e.intent.type} ({e.intent.confidence:.2f}, {e.intent.router})"
        case SlotsFilled():
            ents = ", ".join(e.intent.entities) or "-"
            return f"slots: entities [{ents}]  query: {shorten(e.intent.reformulated_query or '-', WIDTH - 40)}"
        case PlanUpdated():
            return f"plan (revision {e.revision})" + (f": {shorten(e.reason, 60)}" if e.reason else "")
        case RetrievalStarted():
            who = f"[{e.entity}] " if e.entity else ""
            return f"search {who}“{shorten(e.query, 60)}” …"
        case RetrievalFinished():
            who = f"[{e.entity}] " if e.entity else ""
            got = f"error: {shorten(e.error, 60)}" if e.error else f"{len(e.chunk_ids)} chunk(s)"
            return f"search {who}“{shorten(e.query, 60)}” → {got}  {fmt_ms(e.duration_ms)}"
        case SourcesFound():
            return f"found {len(e.contexts)} chunk(s)"
        case ThoughtEmitted():
            return f"thought {e.step}: {shorten(e.content, WIDTH - 20)}"
        case SufficiencyJudged():
            j = e.judgement
            return f"sufficiency: {j.level}" + (f" — {shorten(j.reason, 70)}" if j.reason else "")
        case ReplanDecided():
            return f"decision: {e.action}" + (f" — {shorten(e.reason, 70)}" if e.reason else "")
        case TokenDelta():
            return e.text
        case DraftReady():
            return f"draft: {len(e.answer)} chars"
        case AnswerReady():
            removed = f", {_plural(len(e.removed_markers), 'bad marker', 'bad markers')} removed" \
                if e.removed_markers else ""
            checked = f", {_plural(len(e.citation_changes), 'unsupported citation', 'unsupported citations')}" \
                " re-pointed or dropped" if e.citation_changes else ""
            return f"answer: {len(e.sources)} source(s) cited{removed}{checked}"
        case CriticVerdictIssued():
            v = e.verdict
            verdict = "pass (forced)" if v.forced else ("pass" if v.passed else "fail")
            return (f"critic: {verdict} {v.score:.1f}/10 (faithfulness {v.faithfulness:.2f}, "
                    f"completeness {v.completeness:.2f})")
        case RetryStarted():
            return f"↻ retry {e.attempt}: {shorten(e.feedback, WIDTH - 20)}"
        case MemoryRecalled():
            return f"recalled {len(e.facts)} fact(s)"
        case MemoryWritten():
            refused = f", {len(e.refused)} refused" if e.refused else ""
            if e.skipped_reason:
                return f"memory: skipped ({e.skipped_reason}{refused})"
            return f"memory: {e.added} added, {e.updated} updated{refused}"
        case LLMCall():
            return (f"llm {e.purpose}: {e.model}  {e.prompt_tokens}+{e.completion_tokens} tokens  "
                    f"{fmt_ms(e.duration_ms)}")
        case Notice():
            return f"{e.level}: {shorten(e.message, WIDTH - 20)}"
        case WebSearched():
            got = (f"error: {shorten(e.error, 60)}" if e.error else
                   f"{_plural(e.result_count, 'result', 'results')}, "
                   + ("used_web_fallback: the answer rests on them" if e.used else "local answer kept"))
            return f"web search ({e.provider}) “{shorten(e.query, 50)}” → {got}  {fmt_ms(e.duration_ms)}"
        case TurnFinished():
            r = e.result
            return f"■ answer ({r.strategy}, {_plural(r.retry_count, 'retry', 'retries')}):"
        case ResearchStarted():
            return f"▶ research “{shorten(e.topic, WIDTH - 40)}”  (session {e.session_id}, from {e.stage})"
        case ResearchStageChanged():
            return f"stage: {e.previous or '-'} → {e.stage}"
        case ClarificationAsked():
            return f"clarify: {_plural(len(e.questions), 'question', 'questions')}"
        case OutlineProposed():
            return f"outline: {shorten(e.outline.title, 50)} ({len(e.outline.knowledge_points)} points)"
        case OutlineEdited():
            return (f"outline edited: {len(e.outline.knowledge_points)} points "
                    f"(+{len(e.added)} −{len(e.removed)} ~{len(e.changed)})")
        case PointSearched():
            got = f"error: {shorten(e.error, 50)}" if e.error else f"{e.kept} kept of {e.candidates}"
            return f"point {e.index}/{e.total} {e.point_id} “{shorten(e.topic, 40)}” → {got}  {fmt_ms(e.duration_ms)}"
        case ResearchWaiting():
            return f"⏸ waiting for {'answers' if e.needs == 'answers' else 'outline confirmation'} ({e.stage})"
        case ReviewFinished():
            r = e.review
            return f"■ review: {len(r.points)} points, {len(r.sources)} source(s), {len(r.uncovered)} uncovered"
        case TurnFailed():
            return f"✗ failed ({e.category}{', in ' + e.node if e.node else ''}): {e.error}"
    return getattr(e, "kind", type(e).__name__)


def details(e: Event) -> list[str]:
    """The lines under :func:`describe`'s, for events that carry a list or a body (often none)."""
    match e:
        case PlanUpdated():
            return [f"{n}. {shorten(q, WIDTH - 10)}" for n, q in enumerate(e.sub_questions, 1)]
        case CriticVerdictIssued() if e.verdict.feedback and not e.verdict.passed:
            return [f"feedback: {shorten(e.verdict.feedback, WIDTH - 20)}"]
        case MemoryRecalled():
            return [f"· {shorten(f, WIDTH - 10)}" for f in e.facts]
        case WebSearched():
            return [f"· {url}" for url in e.urls]
        case TurnFinished():
            r = e.result
            lines = [line for line in r.final_answer.splitlines() if line.strip()]
            return lines + [f"[{s.index}] {shorten(s.title or s.source or s.doc_id, 60)}  ({s.url or s.chunk_id})"
                            for s in r.sources]
    return []


def node_summary(events: list[Event]) -> str:
    """The one-line summary of a node, from the events it emitted: its searches, then the last
    thing it decided (a verdict, a plan, a draft …)."""
    parts: list[str] = []
    searches = [e for e in events if isinstance(e, RetrievalFinished)]
    if searches:
        chunks = len({c for e in searches for c in e.chunk_ids})
        parts.append(f"{_plural(len(searches), 'search', 'searches')}, {chunks} chunk(s)")
    for e in reversed(events):
        if isinstance(e, DraftReady) or not isinstance(e, (*QUIET, NodeFinished, RetrievalFinished, LLMCall)):
            parts.append(describe(e))
            break
    return "; ".join(parts)


def forced_pass(result: object) -> str:
    """One line saying why a turn's answer was delivered without the critic's approval, or ""."""
    critic = getattr(result, "critic", None)
    if critic is None or not critic.forced:
        return ""
    retries = getattr(result, "retry_count", 0)
    why = shorten(" ".join(critic.feedback.split()), 160) if critic.feedback else "no reason given"
    # no retry ran (none allowed, or it would have repeated the same searches): "in 0 retries" misreads
    said = (f"no draft satisfied the critic in {_plural(retries, 'retry', 'retries')}" if retries
            else "the critic did not pass the only draft")
    return (f"forced pass: {said} "
            f"(best {critic.score:.1f}/10: {why}); check the cited sources, and nothing was memorized")
