"""Derive a trace's searchable summary from a turn's typed events.

What a trace answers at a glance: intent and strategy, every step with its start, end and duration,
the queries sent and the chunk ids they returned, sufficiency judgements, critic verdicts, retries,
LLM calls with tokens, the final answer and the error (if any). Everything comes from the events;
nothing here looks at graph internals.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from core import events as ev


class TraceStep(BaseModel):
    node: str
    graph: str = "main"
    attempt: int = 0
    started: float
    finished: float | None = None
    duration_ms: float = 0.0
    summary: str = ""
    ok: bool = True


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
    started = min((e.ts for e in events), default=0.0)
    finished = max((e.ts for e in events), default=started)
    d = TraceDetail(trace_id=trace_id, session_id=session_id, question=question,
                    started=started, finished=finished, duration_ms=round((finished - started) * 1000, 3))
    open_steps: dict[tuple, TraceStep] = {}
    for e in events:
        if isinstance(e, ev.NodeStarted):
            step = TraceStep(node=e.node, graph=e.graph, attempt=e.attempt, started=e.ts)
            open_steps[(e.node, e.graph, e.attempt)] = step
            d.steps.append(step)
        elif isinstance(e, ev.NodeFinished):
            step = open_steps.pop((e.node, e.graph, e.attempt), None)
            if step is None:  # finished without a start event: still a step
                step = TraceStep(node=e.node, graph=e.graph, attempt=e.attempt, started=e.ts - e.duration_ms / 1000)
                d.steps.append(step)
            step.finished, step.duration_ms, step.summary, step.ok = e.ts, e.duration_ms, e.summary, e.ok
        elif isinstance(e, (ev.IntentClassified, ev.SlotsFilled)):
            d.intent = e.intent.type
            d.intent_detail = e.intent.model_dump(mode="json")
        elif isinstance(e, ev.RetrievalStarted):
            if e.query not in d.queries:
                d.queries.append(e.query)
        elif isinstance(e, ev.RetrievalFinished):
            if e.query not in d.queries:
                d.queries.append(e.query)
            d.chunk_ids += [c for c in e.chunk_ids if c not in d.chunk_ids]
        elif isinstance(e, ev.SourcesFound):
            d.chunk_ids += [c.chunk_id for c in e.contexts if c.chunk_id not in d.chunk_ids]
        elif isinstance(e, ev.SufficiencyJudged):
            d.sufficiency.append({"step": e.step, **e.judgement.model_dump(mode="json")})
        elif isinstance(e, ev.CriticVerdictIssued):
            d.critic_verdicts.append({"attempt": e.attempt, **e.verdict.model_dump(mode="json")})
        elif isinstance(e, ev.RetryStarted):
            d.retries = max(d.retries, e.attempt)
            d.retry_feedback.append(e.feedback)
        elif isinstance(e, ev.LLMCall):
            d.llm.append(e.model_dump(mode="json", exclude={"kind", "turn_id"}))
            d.llm_calls += 1
            d.prompt_tokens += e.prompt_tokens
            d.completion_tokens += e.completion_tokens
        elif isinstance(e, ev.DraftReady):
            d.final_answer = e.answer
        elif isinstance(e, ev.MemoryRecalled):
            d.recalled_facts = list(e.facts)
        elif isinstance(e, ev.MemoryWritten):
            d.memorized_facts = list(e.facts)
        elif isinstance(e, ev.Notice):
            d.notices.append(f"{e.level}: {e.message}")
        elif isinstance(e, ev.TurnFinished):
            r = e.result
            d.final_answer = r.final_answer
            d.strategy = r.strategy
            d.retries = max(d.retries, r.retry_count)
            if r.intent is not None:
                d.intent, d.intent_detail = r.intent.type, r.intent.model_dump(mode="json")
            if r.llm_calls > d.llm_calls:  # the result counts calls the events may not itemize
                d.llm_calls = r.llm_calls
                d.prompt_tokens = max(d.prompt_tokens, r.tokens.get("prompt", 0))
                d.completion_tokens = max(d.completion_tokens, r.tokens.get("completion", 0))
        elif isinstance(e, ev.TurnFailed):
            d.error = e.error if not e.node else f"{e.error} (in {e.node})"
    if not d.strategy and d.intent_detail:
        from core.state import Intent

        d.strategy = Intent.model_validate(d.intent_detail).to_strategy()
    return d
