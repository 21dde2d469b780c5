"""The research graph: clarify → (wait) → outline → (wait) → search → review, checkpointed.

``START → clarify → await_answers → outline → await_outline → search → review → END``. The two
``await_*`` nodes call LangGraph's ``interrupt()`` when the user is needed; the checkpoint then holds
the run where it stands, and the next call resumes it with ``Command(resume=...)``, in this process
or another. They are nodes of their own because an interrupted node runs again from its start when
resumed: the nodes that emit questions and outlines never do. State values are plain JSON (model
dumps), so checkpoints need no type registrations. Nodes report progress only through
:mod:`core.events` in LangGraph's custom stream.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt

from core.events import ClarificationAsked, OutlineEdited, OutlineProposed, ResearchStageChanged
from core.research import llm as llm_steps
from core.research import outline as outlines
from core.research.compose import write_review
from core.research.search import CANDIDATES, PointHits, search_all
from core.research.types import ClarifyingQuestion, Outline
from core.telemetry import emit
from core.vocabulary import Vocabulary


@dataclass
class ResearchContext:
    """What research nodes get from LangGraph's run-time context (never checkpointed)."""

    settings: Any
    brain: Any
    hub: Any
    collection: str
    vocabulary: Vocabulary


class ResearchState(TypedDict, total=False):
    topic: str
    collection: str
    clarify: bool
    auto_confirm: bool
    stage: str
    questions: list[dict]
    answers: dict[str, str] | None
    proposed: dict | None
    edit: dict | None  # an outline the user gave before it was proposed (CLI --outline)
    outline: dict | None
    found: list[dict]
    review: dict | None


def _stage(state: ResearchState, to: str) -> None:
    emit(ResearchStageChanged(stage=to, previous=state.get("stage") or "initial"))


def _library(vocabulary: Vocabulary) -> list[str]:
    papers = [f"{t.name} ({t.year})" if t.year else t.name for t in vocabulary.terms if t.kind == "paper"]
    return papers + [t.name for t in vocabulary.terms if t.kind == "method"][:20]  # not the works they cite


async def clarify(state: ResearchState, runtime: Any) -> dict:
    if not state.get("clarify") or state.get("answers") is not None:
        return {}
    ctx: ResearchContext = runtime.context
    asked = None
    llm = llm_steps.llm_of(ctx.brain)
    if llm is not None:
        asked = await llm_steps.questions(llm, state["topic"], _library(ctx.vocabulary))
    asked = asked or outlines.clarifying_questions(state["topic"], ctx.vocabulary)
    _stage(state, "clarification")
    emit(ClarificationAsked(questions=asked))
    return {"questions": [q.model_dump() for q in asked], "stage": "clarification"}


async def await_answers(state: ResearchState, runtime: Any) -> dict:
    if not state.get("clarify") or state.get("answers") is not None:
        return {}
    got = interrupt({"needs": "answers"})
    update: dict = {"answers": {str(k): str(v) for k, v in (got.get("answers") or {}).items()}}
    if got.get("edit"):
        update["edit"] = got["edit"]
    if "confirm" in got:  # this call decides whether the outline is confirmed or shown (--print-outline)
        update["auto_confirm"] = bool(got["confirm"])
    return update


async def outline(state: ResearchState, runtime: Any) -> dict:
    ctx: ResearchContext = runtime.context
    topic = state["topic"]
    questions = [ClarifyingQuestion.model_validate(q) for q in state.get("questions") or []]
    answers = state.get("answers") or {}
    proposed = None
    llm = llm_steps.llm_of(ctx.brain)
    if llm is not None:
        proposed = await llm_steps.outline(llm, topic, questions, answers, _library(ctx.vocabulary))
    if proposed is None:
        parts = outlines.facets(topic)
        found = await asyncio.gather(*(ctx.hub.search(f, CANDIDATES, ctx.collection) for f in parts))
        proposed = outlines.build_outline(topic, dict(zip(parts, found)), ctx.vocabulary,
                                          answers=answers, questions=questions)
    _stage(state, "confirmation")
    emit(OutlineProposed(outline=proposed))
    return {"proposed": proposed.model_dump(), "stage": "confirmation"}


async def await_outline(state: ResearchState, runtime: Any) -> dict:
    proposed = Outline.model_validate(state["proposed"])
    if state.get("edit"):
        chosen = Outline.model_validate(state["edit"])
    elif state.get("auto_confirm"):
        chosen = proposed
    else:
        got = interrupt({"needs": "outline"})
        chosen = Outline.model_validate(got["outline"]) if got.get("outline") else proposed
    if chosen != proposed:
        added, removed, changed = outlines.diff(proposed, chosen)
        emit(OutlineEdited(outline=chosen, added=added, removed=removed, changed=changed))
    return {"outline": chosen.model_dump(), "edit": None}


async def search(state: ResearchState, runtime: Any) -> dict:
    ctx: ResearchContext = runtime.context
    _stage(state, "searching")
    chosen = Outline.model_validate(state["outline"])
    found = await search_all(ctx.hub, chosen.knowledge_points, ctx.collection, vocab=ctx.vocabulary)
    return {"found": [h.to_dict() for h in found], "stage": "searching"}


async def review(state: ResearchState, runtime: Any) -> dict:
    ctx: ResearchContext = runtime.context
    _stage(state, "review")
    chosen = Outline.model_validate(state["outline"])
    found = [PointHits.from_dict(d) for d in state.get("found") or []]
    done = await write_review(ctx, chosen, found)
    return {"review": done.model_dump(), "stage": "review"}


def build_research_graph(checkpointer: Any) -> Any:
    g = StateGraph(ResearchState, context_schema=ResearchContext)
    order = [("clarify", clarify), ("await_answers", await_answers), ("outline", outline),
             ("await_outline", await_outline), ("search", search), ("review", review)]
    prev = START
    for name, fn in order:
        g.add_node(name, fn)
        g.add_edge(prev, name)
        prev = name
    g.add_edge(prev, END)
    return g.compile(checkpointer=checkpointer)
