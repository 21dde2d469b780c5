"""save_memory: memorize facts from an answer the critic passed on its merits (never a forced pass).

Only facts that pass :func:`core.nodes.fact_sources.screen` are kept: not instruction-like, stated
by the answer and supported by a retrieved chunk, which is recorded as the fact's provenance. Then
:func:`core.nodes.fact_vetting.vet` refuses facts from a document with instruction-like text and
facts another indexed source contradicts.
"""

from __future__ import annotations

from typing import Any

from core.events import MemoryWritten
from core.nodes.common import ctx_of, traced
from core.nodes.fact_sources import screen
from core.nodes.fact_vetting import vet
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
    kept = await vet(screen(facts, state.draft_answer, state.retrieved_contexts), ctx.hub, ctx.collection,
                     ctx.settings.agent.top_k, state.retrieved_contexts)
    if not kept.facts:
        emit(MemoryWritten(facts=[], refused=kept.refused,
                           skipped_reason="no fact worth keeping" if not kept.refused else
                           "no fact passed the memory hygiene checks"))
        return {}
    result = await ctx.facts.memorize(kept.facts, source_question=state.question, session_id=ctx.session_id,
                                      sources=kept.sources)
    refused = kept.refused + [f"{f} — instruction-like" for f in result.rejected]
    emit(MemoryWritten(facts=result.facts, added=result.added, updated=result.updated, refused=refused))
    return {}
