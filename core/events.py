"""The one typed event stream a turn produces.

The Textual app, the trace store and ``paperpilot ask`` all consume these events and dispatch on
their classes; nothing outside ``core`` looks at graph internals. Every event is a Pydantic model
with a ``kind`` tag (for storage only), so a recorded trace can be turned back into the same objects
(:func:`event_from_dict`) and replayed. This module imports only :mod:`core.types` and Pydantic:
no LangGraph, no model code, so the app can import it before first paint.

The turn's bounds travel on :class:`TurnStarted`; the graph's static shape (intent → strategy,
each strategy's steps) is in :mod:`core.types`. :mod:`core.tracing.fold` folds a turn's events into
one summary and :mod:`core.tracing.describe` says what one event means, for every consumer.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter

from core.research.types import ClarifyingQuestion, Outline, ResearchReview, ResearchStage
from core.types import CriticVerdict, Intent, RetrievedContext, Source, SufficiencyJudgement, TurnResult


class _Event(BaseModel):
    ts: float = Field(default_factory=time.time)
    turn_id: str = ""


class TurnStarted(_Event):
    kind: Literal["turn_started"] = "turn_started"
    question: str
    session_id: str
    brain: str = "offline"
    hub: str = ""  # the hub connection used: "hub (stdio)", "hub (daemon :PORT)", ... ("" in older traces)
    # The bounds of this turn, from settings (``agent.*``); a recorded trace without them gets the
    # settings defaults (a test keeps the two in step).
    max_retries: int = 2
    max_react_steps: int = 5
    max_plan_steps: int = 4


class NodeStarted(_Event):
    kind: Literal["node_started"] = "node_started"
    node: str
    graph: str = "main"  # main | multi_hop | exploratory
    attempt: int = 0


class NodeFinished(_Event):
    kind: Literal["node_finished"] = "node_finished"
    node: str
    graph: str = "main"
    attempt: int = 0
    duration_ms: float = 0.0
    summary: str = ""
    detail: dict[str, Any] = Field(default_factory=dict)
    ok: bool = True


class IntentClassified(_Event):
    kind: Literal["intent_classified"] = "intent_classified"
    intent: Intent
    latency_ms: float = 0.0


class SlotsFilled(_Event):
    kind: Literal["slots_filled"] = "slots_filled"
    intent: Intent


class PlanUpdated(_Event):
    kind: Literal["plan_updated"] = "plan_updated"
    sub_questions: list[str]
    revision: int = 0
    reason: str = ""


class RetrievalStarted(_Event):
    kind: Literal["retrieval_started"] = "retrieval_started"
    query: str
    entity: str | None = None


class RetrievalFinished(_Event):
    kind: Literal["retrieval_finished"] = "retrieval_finished"
    query: str
    entity: str | None = None
    chunk_ids: list[str] = Field(default_factory=list)
    duration_ms: float = 0.0
    error: str | None = None


class SourcesFound(_Event):
    kind: Literal["sources_found"] = "sources_found"
    contexts: list[RetrievedContext]


class ThoughtEmitted(_Event):
    kind: Literal["thought"] = "thought"
    content: str
    step: int = 0
    query: str | None = None


class SufficiencyJudged(_Event):
    kind: Literal["sufficiency"] = "sufficiency"
    judgement: SufficiencyJudgement
    step: int = 0


class TokenDelta(_Event):
    kind: Literal["token"] = "token"
    text: str
    node: str = ""


class ReplanDecided(_Event):
    """multi_hop: after a step, go on with the plan, revise it, or synthesize."""

    kind: Literal["replan_decided"] = "replan_decided"
    action: Literal["next_step", "replan", "synthesize"]
    reason: str = ""
    executed: int = 0


class DraftReady(_Event):
    kind: Literal["draft_ready"] = "draft_ready"
    answer: str
    node: str = ""


class AnswerReady(_Event):
    """The final answer with its citations renumbered and its sources, before memory is written."""

    kind: Literal["answer_ready"] = "answer_ready"
    answer: str
    sources: list[Source] = Field(default_factory=list)
    removed_markers: list[int] = Field(default_factory=list)  # cited numbers no retrieved chunk had
    citation_changes: list[str] = Field(default_factory=list)  # unsupported [n] re-pointed or dropped


class CriticVerdictIssued(_Event):
    kind: Literal["critic_verdict"] = "critic_verdict"
    verdict: CriticVerdict
    attempt: int = 0


class RetryStarted(_Event):
    kind: Literal["retry"] = "retry"
    attempt: int
    feedback: str  # the refine step's reflection (for the trace)
    queries: list[str] = Field(default_factory=list)
    # the critic's verdict that asked for the retry, which is what the chat shows (never another
    # step's raw model text); None in traces recorded before these fields existed
    score: float | None = None
    issues: list[str] = Field(default_factory=list)


class MemoryRecalled(_Event):
    kind: Literal["memory_recalled"] = "memory_recalled"
    facts: list[str]
    fact_ids: list[int] = Field(default_factory=list)


class MemoryWritten(_Event):
    kind: Literal["memory_written"] = "memory_written"
    facts: list[str]
    added: int = 0
    updated: int = 0
    skipped_reason: str = ""
    refused: list[str] = Field(default_factory=list)  # "fact — reason": failed the memory hygiene checks


class LLMCall(_Event):
    kind: Literal["llm_call"] = "llm_call"
    purpose: str
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0  # US dollars, from llm.pricing (0 for an unpriced model, and in older traces)
    duration_ms: float = 0.0


class Notice(_Event):
    kind: Literal["notice"] = "notice"
    level: Literal["info", "warning", "error"] = "info"
    message: str
    source: str = ""


class WebSearched(_Event):
    """Stage K: a search beyond the knowledge base (``web_fallback``); ``used`` when the answer
    written from its results passed the critic and was delivered."""

    kind: Literal["web_search"] = "web_search"
    provider: str
    query: str
    result_count: int = 0
    urls: list[str] = Field(default_factory=list)
    used: bool = False
    error: str | None = None
    duration_ms: float = 0.0


class ResearchStarted(_Event):
    """A deep-research run (or its resumption) began; ``stage`` is where the session stood."""

    kind: Literal["research_started"] = "research_started"
    topic: str
    session_id: str
    brain: str = "offline"
    stage: ResearchStage = "initial"


class ResearchStageChanged(_Event):
    kind: Literal["research_stage"] = "research_stage"
    stage: ResearchStage
    previous: ResearchStage | None = None


class ClarificationAsked(_Event):
    kind: Literal["clarification_asked"] = "clarification_asked"
    questions: list[ClarifyingQuestion]


class OutlineProposed(_Event):
    kind: Literal["outline_proposed"] = "outline_proposed"
    outline: Outline


class OutlineEdited(_Event):
    """The user confirmed an outline that differs from the proposed one."""

    kind: Literal["outline_edited"] = "outline_edited"
    outline: Outline
    added: list[str] = Field(default_factory=list)  # point ids
    removed: list[str] = Field(default_factory=list)
    changed: list[str] = Field(default_factory=list)


class PointSearched(_Event):
    """One knowledge point's retrieval finished (``index`` of ``total``, 1-based, in completion order)."""

    kind: Literal["point_searched"] = "point_searched"
    point_id: str
    topic: str
    index: int
    total: int
    queries: list[str] = Field(default_factory=list)
    candidates: int = 0  # chunks the hub returned over all queries
    kept: int = 0  # after rerank and cross-point dedupe
    duplicates: int = 0  # chunks kept under another point instead
    duration_ms: float = 0.0
    error: str | None = None


class ResearchWaiting(_Event):
    """The run stopped for the user: answers to the clarifying questions, or outline confirmation."""

    kind: Literal["research_waiting"] = "research_waiting"
    stage: ResearchStage
    needs: Literal["answers", "outline"]


class ReviewFinished(_Event):
    kind: Literal["review_finished"] = "review_finished"
    review: ResearchReview


class TurnFinished(_Event):
    kind: Literal["turn_finished"] = "turn_finished"
    result: TurnResult


class TurnFailed(_Event):
    kind: Literal["turn_failed"] = "turn_failed"
    error: str  # one user-facing line, never a traceback
    # busy: another process is running a turn in the session (agent.session_busy: fail, or session_wait ran out);
    # budget: agent.max_llm_calls_per_turn or max_cost_per_turn was reached before any draft was written
    category: Literal["backend", "config", "cancelled", "busy", "budget", "internal"] = "internal"
    node: str | None = None


Event = Annotated[
    (TurnStarted | NodeStarted | NodeFinished | IntentClassified | SlotsFilled | PlanUpdated
     | RetrievalStarted | RetrievalFinished | SourcesFound | ThoughtEmitted | SufficiencyJudged | ReplanDecided
     | TokenDelta | DraftReady | AnswerReady | CriticVerdictIssued | RetryStarted | MemoryRecalled | MemoryWritten
     | LLMCall | Notice | WebSearched | TurnFinished | TurnFailed
     | ResearchStarted | ResearchStageChanged | ClarificationAsked | OutlineProposed | OutlineEdited | PointSearched
     | ResearchWaiting | ReviewFinished),
    Field(discriminator="kind"),
]
_ADAPTER: TypeAdapter = TypeAdapter(Event)


def event_from_dict(data: dict) -> Event:
    """Rebuild a typed event from its ``model_dump()`` (used by trace replay)."""
    return _ADAPTER.validate_python(data)
