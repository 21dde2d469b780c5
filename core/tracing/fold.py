"""One fold of a turn's events into one summary value, for every consumer.

The agent builds ``TurnFinished.result`` from it, the trace store derives its searchable summary
from it, and ``ask`` / ``traces show`` / the app read it. ``fold(events)`` is pure; ``apply(summary,
event)`` advances a summary by one event (it updates ``summary`` in place and returns it), for a
consumer that folds a live stream. A recorded trace from an older version folds too: what its
events lack (the final answer and sources) comes from its ``TurnFinished`` result.
Imports no LangGraph.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from pydantic import BaseModel, Field

from core.events import (
    AnswerReady, CriticVerdictIssued, DraftReady, Event, IntentClassified, LLMCall, MemoryRecalled, MemoryWritten,
    NodeFinished, NodeStarted, Notice, PlanUpdated, RetrievalFinished, RetrievalStarted, RetryStarted, SlotsFilled,
    SourcesFound, SufficiencyJudged, TurnFailed, TurnFinished, TurnStarted, WebSearched,
)
from core.types import CriticVerdict, Intent, NodeUsage, Source, TurnResult, node_path


class TraceStep(BaseModel):
    """One node run: when it started and finished, how long it took, its one-line summary."""

    node: str
    graph: str = "main"
    attempt: int = 0
    started: float
    finished: float | None = None
    duration_ms: float = 0.0
    summary: str = ""
    ok: bool = True


class TurnSummary(BaseModel):
    """Everything a turn's events say, folded (see :func:`fold`)."""

    turn_id: str = ""
    session_id: str = ""
    question: str = ""
    brain: str = ""
    hub: str = ""
    max_retries: int = 2  # the bounds TurnStarted carried
    max_react_steps: int = 5
    max_plan_steps: int = 4
    started: float | None = None  # first and last event time
    finished: float | None = None

    intent: Intent | None = None
    plan: list[str] = Field(default_factory=list)
    plan_revision: int = 0
    queries: list[str] = Field(default_factory=list)
    chunk_ids: list[str] = Field(default_factory=list)
    observations: list[SufficiencyJudged] = Field(default_factory=list)
    verdicts: list[CriticVerdictIssued] = Field(default_factory=list)
    retries: int = 0
    retry_feedback: list[str] = Field(default_factory=list)
    draft: str = ""
    answer: AnswerReady | None = None
    llm: list[LLMCall] = Field(default_factory=list)
    llm_by_node: dict[str, NodeUsage] = Field(default_factory=dict)  # each call counts for the node it ran in
    recalled_facts: list[str] = Field(default_factory=list)
    memorized_facts: list[str] = Field(default_factory=list)
    memory_skipped: str = ""
    notices: list[Notice] = Field(default_factory=list)
    web_search: WebSearched | None = None  # stage K's search beyond the knowledge base, if one ran
    steps: list[TraceStep] = Field(default_factory=list)
    timings_ms: dict[str, float] = Field(default_factory=dict)  # per node path, plus "router"
    result: TurnResult | None = None  # from TurnFinished
    failure: TurnFailed | None = None

    @property
    def strategy(self) -> str:
        if self.result is not None and self.result.strategy:
            return self.result.strategy
        return self.intent.to_strategy() if self.intent else ""

    @property
    def verdict(self) -> CriticVerdict | None:
        """The last critic verdict (the one that let the answer through, forced or not)."""
        return self.verdicts[-1].verdict if self.verdicts else None

    @property
    def final_answer(self) -> str:
        if self.result is not None:
            return self.result.final_answer
        return self.answer.answer if self.answer is not None else self.draft

    @property
    def sources(self) -> list[Source]:
        if self.result is not None:
            return self.result.sources
        return self.answer.sources if self.answer is not None else []

    @property
    def llm_calls(self) -> int:
        return max(len(self.llm), self.result.llm_calls if self.result else 0)

    @property
    def prompt_tokens(self) -> int:
        return max(sum(c.prompt_tokens for c in self.llm), self.result.tokens.get("prompt", 0) if self.result else 0)

    @property
    def completion_tokens(self) -> int:
        return max(sum(c.completion_tokens for c in self.llm),
                   self.result.tokens.get("completion", 0) if self.result else 0)

    @property
    def cost(self) -> float:
        return max(sum(c.cost for c in self.llm), self.result.cost if self.result else 0.0)

    @property
    def duration_ms(self) -> float:
        if self.started is None or self.finished is None:
            return 0.0
        return round((self.finished - self.started) * 1000, 3)

    @property
    def error(self) -> str | None:
        """The failure as one line (with the node it happened in), or None."""
        f = self.failure
        return None if f is None else (f"{f.error} (in {f.node})" if f.node else f.error)

    def to_result(self, now: float | None = None) -> TurnResult:
        """The ``TurnFinished`` result (``ask --json``); ``total`` runs to ``now`` (default: the last event)."""
        end = now if now is not None else (self.finished or time.time())
        timings = {**self.timings_ms, "total": round((end - (self.started or end)) * 1000, 3)}
        prompt, completion = self.prompt_tokens, self.completion_tokens
        return TurnResult(
            question=self.question, session_id=self.session_id, trace_id=self.turn_id, intent=self.intent,
            strategy=self.strategy, final_answer=self.final_answer, sources=self.sources, critic=self.verdict,
            retry_count=self.retries, llm_calls=self.llm_calls,
            tokens={"prompt": prompt, "completion": completion, "total": prompt + completion},
            cost=self.cost, llm_by_node={k: v.model_copy() for k, v in self.llm_by_node.items()},
            timings_ms=timings, recalled_facts=self.recalled_facts, notices=[n.message for n in self.notices],
            hub=self.hub, used_web_fallback=bool(self.web_search and self.web_search.used),
            web_query=self.web_search.query if self.web_search else "",
            web_result_count=self.web_search.result_count if self.web_search else 0,
        )


def fold(events: Iterable[Event]) -> TurnSummary:
    """The summary of a turn's events (any prefix of them: a live turn folds as it goes)."""
    summary = TurnSummary()
    for event in events:
        apply(summary, event)
    return summary


def _add(into: list[str], items: Iterable[str]) -> None:
    into += [x for x in items if x not in into]


def _time(s: TurnSummary, key: str, ms: float) -> None:
    s.timings_ms[key] = round(s.timings_ms.get(key, 0.0) + ms, 3)


def apply(s: TurnSummary, e: Event) -> TurnSummary:
    """Fold one more event into ``s`` (in place) and return it."""
    ts = getattr(e, "ts", None)
    if ts is not None:
        s.started = ts if s.started is None else min(s.started, ts)
        s.finished = ts if s.finished is None else max(s.finished, ts)
    if getattr(e, "turn_id", "") and not s.turn_id:
        s.turn_id = e.turn_id
    match e:
        case TurnStarted():
            s.question, s.session_id, s.brain, s.hub = e.question, e.session_id, e.brain, e.hub
            s.max_retries, s.max_react_steps, s.max_plan_steps = e.max_retries, e.max_react_steps, e.max_plan_steps
        case NodeStarted():
            s.steps.append(TraceStep(node=e.node, graph=e.graph, attempt=e.attempt, started=e.ts))
        case NodeFinished():
            step = next((x for x in reversed(s.steps) if (x.node, x.graph, x.attempt, x.finished) ==
                         (e.node, e.graph, e.attempt, None)), None)
            if step is None:  # finished without a start event: still a step
                step = TraceStep(node=e.node, graph=e.graph, attempt=e.attempt, started=e.ts - e.duration_ms / 1000)
                s.steps.append(step)
            step.finished, step.duration_ms, step.summary, step.ok = e.ts, e.duration_ms, e.summary, e.ok
            _time(s, node_path(e.node, e.graph), e.duration_ms)
        case IntentClassified():
            s.intent = e.intent
            _time(s, "router", e.latency_ms)
        case SlotsFilled():
            s.intent = e.intent
        case PlanUpdated():
            s.plan, s.plan_revision = list(e.sub_questions), e.revision
        case RetrievalStarted():
            _add(s.queries, [e.query])
        case RetrievalFinished():
            _add(s.queries, [e.query])
            _add(s.chunk_ids, e.chunk_ids)
        case SourcesFound():
            _add(s.chunk_ids, [c.chunk_id for c in e.contexts])
        case SufficiencyJudged():
            s.observations.append(e)
        case CriticVerdictIssued():
            s.verdicts.append(e)
        case RetryStarted():
            s.retries = max(s.retries, e.attempt)
            s.retry_feedback.append(e.feedback)
        case DraftReady():
            s.draft = e.answer
        case AnswerReady():
            s.answer = e
        case LLMCall():
            s.llm.append(e)
            running = next((x for x in reversed(s.steps) if x.finished is None), None)  # the innermost open node
            usage = s.llm_by_node.setdefault(node_path(running.node, running.graph) if running else "(none)",
                                             NodeUsage())
            usage.calls += 1
            usage.prompt_tokens += e.prompt_tokens
            usage.completion_tokens += e.completion_tokens
            usage.cost += e.cost
        case MemoryRecalled():
            s.recalled_facts = list(e.facts)
        case MemoryWritten():
            s.memorized_facts, s.memory_skipped = list(e.facts), e.skipped_reason
        case Notice():
            s.notices.append(e)
        case WebSearched():
            s.web_search = e
        case TurnFinished():
            s.result = e.result
            if not s.llm_by_node:  # a trace recorded before calls were counted per node
                s.llm_by_node = {k: v.model_copy() for k, v in e.result.llm_by_node.items()}
            s.retries = max(s.retries, e.result.retry_count)
            if e.result.intent is not None:
                s.intent = e.result.intent
        case TurnFailed():
            s.failure = e
    return s
