"""critic: judge the draft (Reflexion); after max_retries a failing draft passes with forced=true."""

from __future__ import annotations

from typing import Any

from core.events import CriticVerdictIssued
from core.events import Notice
from core.nodes.common import ctx_of, traced
from core.state import AgentState
from core.telemetry import emit


@traced("critic")
async def critic_node(state: AgentState, runtime: Any) -> dict:
    ctx = ctx_of(runtime)
    assert state.intent is not None
    verdict = await ctx.brain.critique(state.question, state.intent, state.retrieved_contexts,
                                       state.draft_answer, state.sub_questions)
    update: dict = {}
    best = state.best_verdict
    if not verdict.passed and (best is None or verdict.score > best.score):
        update = {"best_draft": state.draft_answer, "best_contexts": state.retrieved_contexts, "best_verdict": verdict}
    if not verdict.passed and state.retry_count >= state.max_retries:
        if best is not None and best.score > verdict.score:
            # A retry that made things worse: deliver the best attempt, with its own verdict.
            update = {"draft_answer": state.best_draft, "retrieved_contexts": state.best_contexts}
            emit(Notice(message=f"delivering an earlier attempt that scored {best.score:.1f}, "
                                f"not this one's {verdict.score:.1f}", source="critic"))
            verdict = best
        verdict = verdict.model_copy(update={"passed": True, "forced": True})
    emit(CriticVerdictIssued(verdict=verdict, attempt=state.retry_count))
    return {**update, "critic_verdict": verdict}


def critic_gate(state: AgentState) -> str:
    """pass → save_memory; retry → retry_refine (the node already forced a pass at the limit)."""
    return "pass" if state.critic_verdict is None or state.critic_verdict.passed else "retry"
