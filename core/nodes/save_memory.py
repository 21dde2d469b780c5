"""save_memory: memorize facts from an answer the critic passed on its merits (never a forced pass)."""

from __future__ import annotations

from typing import Any

from core.events import MemoryWritten
from core.nodes.common import ctx_of, traced
from core.state import AgentState
from core.telemetry import emit


@traced("save_memory")
async def save_memory_node(state: AgentState, runtime: Any) -> dict:
    ctx = ctx_of(runtime)
    verdict = state.critic_verdict
    reason = ""
    if ctx.facts is None or not ctx.settings.memory.enabled:
        reason = "memory off"
    elif verdict is None or not verdict.passed:
        reason = "critic did not pass"
    elif verdict.forced:
        reason = "pass was forced after max retries"
    if reason:
        emit(MemoryWritten(facts=[], skipped_reason=reason))
        return {}
    facts = await ctx.brain.extract_facts(state.question, state.draft_answer, state.retrieved_contexts)
    if not facts:
        emit(MemoryWritten(facts=[], skipped_reason="no fact worth keeping"))
        return {}
    result = await ctx.facts.memorize(facts, source_question=state.question, session_id=ctx.session_id)
    emit(MemoryWritten(facts=facts, added=result.added, updated=result.updated))
    return {}
