"""The small interface every node calls to think.

A *brain* makes each judgement the graph needs: classify intent, fill slots, plan and replan,
choose the next ReAct action, judge sufficiency, synthesize, critique, refine, extract facts; and,
outside a turn, name the hub's topics.
The offline brain answers all of them deterministically; the LLM brain asks a chat model.
:class:`~core.brains.composite.CompositeBrain` mixes them per method (e.g. LoRA router +
LLM synthesis). Brains never touch MCP: nodes retrieve, brains reason over what came back.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol, runtime_checkable
from collections.abc import Awaitable, Callable

from pydantic import BaseModel, Field

from core.errors import BackendUnavailable, BrainError  # noqa: F401 - brains raise them
from core.scope import Topic
from core.types import (  # noqa: F401 - the value types of this interface
    CriticVerdict, Intent, IntentType, RetrievedContext, RouteDecision, SufficiencyJudgement, SynthesisKind,
    SynthesisRequest, Turn,
)
from core.vocabulary import Vocabulary

TokenSink = Callable[[str], Awaitable[None] | None]


def share_vocabulary(part: Any, vocabulary: Vocabulary) -> None:
    """Give ``part`` (a brain, a local model, or a wrapper of them) the collection's vocabulary, if it
    matches names: the offline rules read names only from the vocabulary they are handed."""
    use = getattr(part, "use_vocabulary", None)
    if callable(use):
        use(vocabulary)


class SlotFillingOutput(BaseModel):
    entities: list[str] = Field(default_factory=list)
    dimensions: list[str] = Field(default_factory=list)
    constraints: dict = Field(default_factory=dict)
    reformulated_query: str


class PlanOutput(BaseModel):
    sub_questions: list[str]
    reason: str = ""


class ReplanDecision(BaseModel):
    action: Literal["next_step", "replan", "synthesize"]
    reason: str = ""


class ReactAction(BaseModel):
    thought: str
    action: Literal["search", "finish"]
    query: str = ""


class RefinePlan(BaseModel):
    """What the next attempt changes, from the critic's feedback (Reflexion)."""

    reflection: str
    extra_queries: list[str] = Field(default_factory=list)
    reformulated_query: str | None = None


@runtime_checkable
class Brain(Protocol):
    """What a node may ask. ``name`` shows in the status bar and traces."""

    name: str

    async def classify(self, question: str, history: list[Turn]) -> RouteDecision: ...

    async def fill_slots(
        self, question: str, intent_type: IntentType, history: list[Turn], vocabulary: list[str]
    ) -> SlotFillingOutput: ...

    async def plan(
        self, question: str, intent: Intent, *, executed: list[str], contexts: list[RetrievedContext],
        previous_plan: list[str], reflections: list[str], max_steps: int,
    ) -> PlanOutput: ...

    async def replan(
        self, question: str, plan: list[str], executed: list[str], latest: list[RetrievedContext]
    ) -> ReplanDecision: ...

    async def react_step(
        self, question: str, intent: Intent, *, step: int, max_steps: int, queries: list[str],
        contexts: list[RetrievedContext], observations: list[SufficiencyJudgement], reflections: list[str],
    ) -> ReactAction: ...

    async def judge_sufficiency(
        self, question: str, intent: Intent, contexts: list[RetrievedContext], new: list[RetrievedContext]
    ) -> SufficiencyJudgement: ...

    async def synthesize(self, request: SynthesisRequest, on_token: TokenSink | None = None) -> str: ...

    async def critique(
        self, question: str, intent: Intent, contexts: list[RetrievedContext], answer: str,
        sub_questions: list[str],
    ) -> CriticVerdict: ...

    async def refine(self, question: str, intent: Intent, verdict: CriticVerdict) -> RefinePlan: ...

    async def extract_facts(
        self, question: str, answer: str, contexts: list[RetrievedContext]
    ) -> list[str]: ...

    async def name_topics(self, topics: list[Topic]) -> dict[str, str]:
        """Human names for the hub's topics (topic id -> name), each checked; a topic left out keeps
        its keyphrase label. The offline brain names none."""
        ...
