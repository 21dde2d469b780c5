"""load_memory: recall long-term facts relevant to the question (used only at synthesis)."""

from __future__ import annotations

from typing import Any

from core.events import MemoryRecalled
from core.nodes.common import ctx_of, traced
from core.state import AgentState
from core.telemetry import emit


@traced("load_memory")
async def load_memory_node(state: AgentState, runtime: Any) -> dict:
    ctx = ctx_of(runtime)
    mem = ctx.settings.memory
    if ctx.facts is None or not mem.enabled or mem.recall_top_k == 0 or state.retry_count > 0:
        return {}
    recalled = await ctx.facts.recall(state.question, mem.recall_top_k)
    facts = [f.content for f in recalled]
    emit(MemoryRecalled(facts=facts, fact_ids=[f.id for f in recalled]))
    return {"accumulated_facts": facts}
