"""Shared synthesis step: build the request (prior facts always; history only for follow-ups)."""

from __future__ import annotations

from core.types import SynthesisKind, SynthesisRequest
from core.events import DraftReady
from core.nodes.common import AgentContext, history, token_sink
from core.state import AgentState
from core.types import RetrievedContext
from core.telemetry import emit


async def synthesize(ctx: AgentContext, state: AgentState, kind: SynthesisKind,
                     contexts: list[RetrievedContext], node: str, sub_questions: list[str] | None = None) -> str:
    assert state.intent is not None
    request = SynthesisRequest(
        kind=kind,
        question=state.question,
        intent=state.intent,
        contexts=contexts,
        sub_questions=sub_questions or [],
        prior_facts=state.accumulated_facts,
        history=history(state, ctx.settings) if kind == "follow_up" else [],
        reflections=state.reflections,
    )
    answer = await ctx.brain.synthesize(request, token_sink(node))
    emit(DraftReady(answer=answer, node=node))
    return answer
