"""The agent's state: what the graph carries between nodes, as Pydantic models.

Per-turn fields are declared once, in :class:`TurnState` (reset by each turn's input) and its base
:class:`AttemptState` (reset by each retry, and the strategy subgraphs' output schema). Nodes return
plain state updates; what they did goes out as :mod:`core.events`, never through the state.
"""

from __future__ import annotations

from typing import Annotated, get_args

from langchain_core.messages import AnyMessage, HumanMessage
from langgraph.graph.message import add_messages
from pydantic import BaseModel, Field

from core.types import (  # noqa: F401 - the value types the state is made of
    INTENT_TYPES, STRATEGIES, CriticVerdict, Intent, IntentType, RetrievedContext, Source, StrategyName,
    SufficiencyJudgement, SufficiencyLevel,
)

class AttemptState(BaseModel):
    """What one attempt at an answer builds; reset as one value when the critic asks for a retry.

    It is also the declared output schema of the strategy subgraphs: a strategy may change only these.
    """

    sub_questions: list[str] = Field(default_factory=list)
    plan_revisions: int = 0
    retrieved_contexts: list[RetrievedContext] = Field(default_factory=list)
    retrieval_queries: list[str] = Field(default_factory=list)
    observations: list[SufficiencyJudgement] = Field(default_factory=list)
    current_react_step: int = 0
    draft_answer: str = ""
    next_action: str = ""  # subgraph control: next_step | replan | synthesize | continue | act


class TurnState(AttemptState):
    """Every per-turn field; a new turn's input resets it as one value (:func:`turn_input`)."""

    question: str = ""
    turn_id: str = ""
    intent: Intent | None = None

    final_answer: str = ""
    sources: list[Source] = Field(default_factory=list)

    critic_verdict: CriticVerdict | None = None
    # the best-scored failing attempt so far: a forced pass delivers it, not merely the last one
    best_draft: str = ""
    best_contexts: list[RetrievedContext] = Field(default_factory=list)
    best_verdict: CriticVerdict | None = None
    reflections: list[str] = Field(default_factory=list)  # critic feedback carried into retries
    refine_queries: list[str] = Field(default_factory=list)  # extra queries the retry must run
    refined_query: str = ""  # the retry's reformulated query; replaces slot filling's in later attempts

    retry_count: int = 0
    max_retries: int = 2
    max_react_steps: int = 5

    accumulated_facts: list[str] = Field(default_factory=list)

    # stage K (core.nodes.web_fallback): whether the delivered answer rests on a web search, and the search
    used_web_fallback: bool = False
    web_query: str = ""
    web_result_count: int = 0


class AgentState(TurnState):
    """What the graph carries: the per-turn state plus the conversation, which accumulates across
    turns (``add_messages``) and is checkpointed per session (thread)."""

    messages: Annotated[list[AnyMessage], add_messages] = Field(default_factory=list)


def turn_input(question: str, turn_id: str, *, max_retries: int, max_react_steps: int) -> dict:
    """The graph input for a new turn: the question, and a fresh :class:`TurnState` as one value."""
    turn = TurnState(question=question, turn_id=turn_id, max_retries=max_retries, max_react_steps=max_react_steps)
    return {"messages": [HumanMessage(content=question, id=f"{turn_id}-q")], **dict(turn)}


def fresh_attempt() -> dict:
    """The state update that starts a new attempt: every :class:`AttemptState` field at its default."""
    return dict(AttemptState())


def checkpoint_types() -> list[type[BaseModel]]:
    """Every Pydantic type a checkpoint of :class:`AgentState` can hold (the serializer's allowlist)."""
    found: list[type[BaseModel]] = []

    def walk(tp: object) -> None:
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            if tp in found:
                return
            found.append(tp)
            for f in tp.model_fields.values():
                walk(f.annotation)
        for arg in get_args(tp):
            walk(arg)

    walk(AgentState)
    return [t for t in found if t.__module__.startswith("core.")]
