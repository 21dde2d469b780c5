"""retry_refine: carry the critic's feedback into the next attempt (Reflexion)."""

from __future__ import annotations

from typing import Any

from core.events import RetryStarted
from core.nodes.common import ctx_of, step, traced
from core.state import AgentState
from core.telemetry import emit


@traced("retry_refine")
async def retry_refine_node(state: AgentState, runtime: Any) -> dict:
    ctx = ctx_of(runtime)
    assert state.intent is not None and state.critic_verdict is not None
    plan = await ctx.brain.refine(state.question, state.intent, state.critic_verdict)
    attempt = state.retry_count + 1
    emit(RetryStarted(attempt=attempt, feedback=plan.reflection, queries=plan.extra_queries))
    return {
        "retry_count": attempt,
        "reflections": state.reflections + [plan.reflection],
        "refine_queries": plan.extra_queries,
        # The next attempt retrieves and drafts afresh, guided by the reflections.
        "retrieved_contexts": [], "retrieval_queries": [], "sub_questions": [], "observations": [],
        "current_react_step": 0, "draft_answer": "", "next_action": "", "plan_revisions": 0,
        "reasoning_trace": state.reasoning_trace + [
            step("retry", f"Retry {attempt}: {plan.reflection}", extra_queries=plan.extra_queries)],
        "_summary": f"attempt {attempt}: {plan.reflection}",
        "_detail": {"reflection": plan.reflection, "extra_queries": plan.extra_queries},
    }
