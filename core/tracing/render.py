"""Plain-text rendering of a turn's events, one event at a time.

``traces show`` feeds it the stored events and ``traces replay`` the replay iterator, so both print
the same steps in the same order by construction. Streaming-only events (tokens, drafts, node
starts) render to nothing: the step line comes when the node finishes, with its duration.
"""

from __future__ import annotations

from typing import Any

from core import events as ev
from core.memory.text import shorten

WIDTH = 110


def _ms(value: float) -> str:
    return f"{value / 1000:.2f} s" if value >= 1000 else f"{value:.0f} ms"


def render_event(e: Any) -> list[str]:
    """The lines one event contributes to a trace view (often none)."""
    if isinstance(e, ev.TurnStarted):
        return [f"▶ {shorten(e.question, WIDTH)}  (session {e.session_id}, brain {e.brain})"]
    if isinstance(e, ev.NodeFinished):
        where = "" if e.graph == "main" else f"{e.graph}/"
        retry = f" #{e.attempt}" if e.attempt else ""
        mark = "✓" if e.ok else "✗"
        tail = f" — {shorten(e.summary, WIDTH - 40)}" if e.summary else ""
        return [f"  {mark} {where}{e.node}{retry}  {_ms(e.duration_ms)}{tail}"]
    if isinstance(e, ev.IntentClassified):
        i = e.intent
        return [f"    intent: {i.type} ({i.confidence:.2f}, {i.router})"]
    if isinstance(e, ev.SlotsFilled):
        i = e.intent
        ents = ", ".join(i.entities) or "-"
        return [f"    slots: entities [{ents}]  query: {shorten(i.reformulated_query or '-', WIDTH - 40)}"]
    if isinstance(e, ev.PlanUpdated):
        head = f"    plan (revision {e.revision})" + (f": {shorten(e.reason, 60)}" if e.reason else "")
        return [head] + [f"      {n}. {shorten(q, WIDTH - 10)}" for n, q in enumerate(e.sub_questions, 1)]
    if isinstance(e, ev.RetrievalFinished):
        who = f"[{e.entity}] " if e.entity else ""
        got = f"error: {shorten(e.error, 60)}" if e.error else f"{len(e.chunk_ids)} chunk(s)"
        return [f"    search {who}“{shorten(e.query, 60)}” → {got}  {_ms(e.duration_ms)}"]
    if isinstance(e, ev.ThoughtEmitted):
        return [f"    thought {e.step}: {shorten(e.content, WIDTH - 20)}"]
    if isinstance(e, ev.SufficiencyJudged):
        j = e.judgement
        return [f"    sufficiency: {j.level}" + (f" — {shorten(j.reason, 70)}" if j.reason else "")]
    if isinstance(e, ev.CriticVerdictIssued):
        v = e.verdict
        verdict = "pass (forced)" if v.forced else ("pass" if v.passed else "fail")
        line = f"    critic: {verdict} {v.score:.1f}/10 (faithfulness {v.faithfulness:.2f}, completeness {v.completeness:.2f})"
        return [line] + ([f"      feedback: {shorten(v.feedback, WIDTH - 20)}"] if v.feedback and not v.passed else [])
    if isinstance(e, ev.RetryStarted):
        return [f"  ↻ retry {e.attempt}: {shorten(e.feedback, WIDTH - 20)}"]
    if isinstance(e, ev.MemoryRecalled):
        return [f"    recalled {len(e.facts)} fact(s)"] + [f"      · {shorten(f, WIDTH - 10)}" for f in e.facts]
    if isinstance(e, ev.MemoryWritten):
        if e.skipped_reason:
            return [f"    memory: skipped ({e.skipped_reason})"]
        return [f"    memory: {e.added} added, {e.updated} updated"]
    if isinstance(e, ev.LLMCall):
        return [f"    llm {e.purpose}: {e.model}  {e.prompt_tokens}+{e.completion_tokens} tokens  {_ms(e.duration_ms)}"]
    if isinstance(e, ev.Notice):
        return [f"    {e.level}: {shorten(e.message, WIDTH - 20)}"]
    if isinstance(e, ev.TurnFinished):
        r = e.result
        lines = [f"■ answer ({r.strategy}, {r.retry_count} retr{'y' if r.retry_count == 1 else 'ies'}):"]
        lines += [f"  {line}" for line in r.final_answer.splitlines() if line.strip()]
        lines += [f"  [{s.index}] {shorten(s.title or s.source or s.doc_id, 60)}  ({s.chunk_id})" for s in r.sources]
        return lines
    if isinstance(e, ev.TurnFailed):
        return [f"✗ failed ({e.category}{', in ' + e.node if e.node else ''}): {e.error}"]
    return []


def render_header(summary: Any) -> list[str]:
    """Who/when/what of a trace (a :class:`~core.tracing.summary.TraceSummary`), above its steps."""
    import time

    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(summary.started))
    status = "ok" if summary.error is None else "failed"
    return [
        f"trace {summary.trace_id}  session {summary.session_id or '-'}  {when}  {status}",
        f"intent {summary.intent or '-'} · strategy {summary.strategy or '-'} · {summary.retries} retr{'y' if summary.retries == 1 else 'ies'} · "
        f"{summary.llm_calls} LLM calls ({summary.prompt_tokens}+{summary.completion_tokens} tokens) · "
        f"{_ms(summary.duration_ms)}",
    ]


def render_events(events: list[Any]) -> list[str]:
    return [line for e in events for line in render_event(e)]
