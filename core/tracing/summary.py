"""Derive a trace's searchable summary from a turn's typed events.

What a trace answers at a glance: intent and strategy, every step with its start, end and duration,
the queries sent and the chunk ids they returned, sufficiency judgements, critic verdicts, retries,
LLM calls with tokens, the final answer and the error (if any). It is the stored projection of
:func:`core.tracing.fold.fold`; nothing here looks at graph internals.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from core.tracing.fold import TraceStep, fold

__all__ = ["TraceDetail", "TraceStep", "TraceSummary", "summarize"]


class TraceSummary(BaseModel):
    trace_id: str
    session_id: str = ""
    question: str = ""
    intent: str | None = None
    strategy: str = ""
    started: float
    finished: float
    duration_ms: float = 0.0
    retries: int = 0
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    final_answer: str = ""
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


class TraceDetail(TraceSummary):
    intent_detail: dict[str, Any] | None = None
    steps: list[TraceStep] = Field(default_factory=list)
    queries: list[str] = Field(default_factory=list)
    chunk_ids: list[str] = Field(default_factory=list)
    sufficiency: list[dict[str, Any]] = Field(default_factory=list)
    critic_verdicts: list[dict[str, Any]] = Field(default_factory=list)
    retry_feedback: list[str] = Field(default_factory=list)
    llm: list[dict[str, Any]] = Field(default_factory=list)
    recalled_facts: list[str] = Field(default_factory=list)
    memorized_facts: list[str] = Field(default_factory=list)
    notices: list[str] = Field(default_factory=list)
    events: list[Any] = Field(default_factory=list)  # typed core.events objects


def summarize(trace_id: str, session_id: str, question: str, events: list[Any]) -> TraceDetail:
    """Everything a trace stores besides the raw events (``events`` left empty)."""
    t = fold(events)
    started = t.started if t.started is not None else 0.0
    finished = t.finished if t.finished is not None else started
    return TraceDetail(
        trace_id=trace_id, session_id=session_id, question=question, started=started, finished=finished,
        duration_ms=t.duration_ms, intent=t.intent.type if t.intent else None,
        intent_detail=t.intent.model_dump(mode="json") if t.intent else None, strategy=t.strategy,
        retries=t.retries, llm_calls=t.llm_calls, prompt_tokens=t.prompt_tokens,
        completion_tokens=t.completion_tokens, final_answer=t.final_answer, error=t.error, steps=t.steps,
        queries=t.queries, chunk_ids=t.chunk_ids,
        sufficiency=[{"step": o.step, **o.judgement.model_dump(mode="json")} for o in t.observations],
        critic_verdicts=[{"attempt": v.attempt, **v.verdict.model_dump(mode="json")} for v in t.verdicts],
        retry_feedback=t.retry_feedback,
        llm=[c.model_dump(mode="json", exclude={"kind", "turn_id"}) for c in t.llm],
        recalled_facts=t.recalled_facts, memorized_facts=t.memorized_facts,
        notices=[f"{n.level}: {n.message}" for n in t.notices],
    )
