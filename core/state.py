"""The agent's state: every type a node reads or writes, as Pydantic models.

``AgentState`` is checkpointed per session (thread), so per-turn fields are reset by the turn's
input (see :func:`turn_input`); ``messages`` accumulates across turns via ``add_messages``.
"""

from __future__ import annotations

import time
from typing import Annotated, Literal

from langchain_core.messages import AnyMessage, HumanMessage
from langgraph.graph.message import add_messages
from pydantic import BaseModel, Field

from core.types import (  # noqa: F401 - the value types the state is made of
    INTENT_TYPES, STRATEGIES, CriticVerdict, Intent, IntentType, RetrievedContext, Source, StrategyName,
    SufficiencyJudgement, SufficiencyLevel,
)

StepType = Literal[
    "route", "slots", "plan", "replan", "thought", "action", "observation", "sufficiency",
    "synthesis", "critique", "retry", "memory", "warning",
]


class ReasoningStep(BaseModel):
    """One step of the visible reasoning chain."""

    step_type: StepType
    content: str
    timestamp: float = Field(default_factory=time.time)
    metadata: dict = Field(default_factory=dict)


class AgentState(BaseModel):
    """Everything one turn carries through the graph."""

    messages: Annotated[list[AnyMessage], add_messages] = Field(default_factory=list)
    question: str = ""
    turn_id: str = ""

    intent: Intent | None = None

    sub_questions: list[str] = Field(default_factory=list)
    plan_revisions: int = 0
    retrieved_contexts: list[RetrievedContext] = Field(default_factory=list)
    retrieval_queries: list[str] = Field(default_factory=list)
    observations: list[SufficiencyJudgement] = Field(default_factory=list)

    draft_answer: str = ""
    final_answer: str = ""
    sources: list[Source] = Field(default_factory=list)

    critic_verdict: CriticVerdict | None = None
    # the best-scored failing attempt so far: a forced pass delivers it, not merely the last one
    best_draft: str = ""
    best_contexts: list[RetrievedContext] = Field(default_factory=list)
    best_verdict: CriticVerdict | None = None
    reflections: list[str] = Field(default_factory=list)  # critic feedback carried into retries
    refine_queries: list[str] = Field(default_factory=list)  # extra queries the retry must run

    next_action: str = ""  # subgraph control: next_step | replan | synthesize | continue
    retry_count: int = 0
    max_retries: int = 2
    current_react_step: int = 0
    max_react_steps: int = 5

    reasoning_trace: list[ReasoningStep] = Field(default_factory=list)
    accumulated_facts: list[str] = Field(default_factory=list)


def turn_input(question: str, turn_id: str, *, max_retries: int, max_react_steps: int) -> dict:
    """The graph input for a new turn: the question plus a reset of every per-turn field."""
    return {
        "messages": [HumanMessage(content=question, id=f"{turn_id}-q")],
        "question": question,
        "turn_id": turn_id,
        "intent": None,
        "sub_questions": [],
        "plan_revisions": 0,
        "retrieved_contexts": [],
        "retrieval_queries": [],
        "observations": [],
        "draft_answer": "",
        "final_answer": "",
        "sources": [],
        "critic_verdict": None,
        "best_draft": "",
        "best_contexts": [],
        "best_verdict": None,
        "reflections": [],
        "refine_queries": [],
        "next_action": "",
        "retry_count": 0,
        "max_retries": max_retries,
        "current_react_step": 0,
        "max_react_steps": max_react_steps,
        "reasoning_trace": [],
        "accumulated_facts": [],
    }
