"""retry_refine: carry the critic's feedback into the next attempt (Reflexion)."""

from __future__ import annotations

from typing import Any

from core.events import RetryStarted
from core.nodes.common import ctx_of, traced
from core.state import AgentState, fresh_attempt
from core.telemetry import emit


@traced("retry_refine")
async def retry_refine_node(state: AgentState, runtime: Any) -> dict:
    ctx = ctx_of(runtime)
    assert state.intent is not None and state.critic_verdict is not None
    plan = await ctx.brain.refine(state.question, state.intent, state.critic_verdict)
    attempt = state.retry_count + 1
    emit(RetryStarted(attempt=attempt, feedback=plan.reflection, queries=plan.extra_queries))
    # The next attempt retrieves and drafts afresh, guided by the reflections.
    return {**fresh_attempt(), "retry_count": attempt, "reflections": state.reflections + [plan.reflection],
            "refine_queries": plan.extra_queries}
