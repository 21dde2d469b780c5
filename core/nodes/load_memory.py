"""load_memory: recall long-term facts relevant to the question (used only at synthesis)."""

from __future__ import annotations

from typing import Any

from core.events import MemoryRecalled
from core.nodes.common import ctx_of, step, traced
from core.state import AgentState
from core.telemetry import emit


@traced("load_memory")
async def load_memory_node(state: AgentState, runtime: Any) -> dict:
    ctx = ctx_of(runtime)
    mem = ctx.settings.memory
    if ctx.facts is None or not mem.enabled or mem.recall_top_k == 0 or state.retry_count > 0:
        return {"_summary": "memory off" if ctx.facts is None or not mem.enabled else "kept"}
    recalled = await ctx.facts.recall(state.question, mem.recall_top_k)
    facts = [f.content for f in recalled]
    emit(MemoryRecalled(facts=facts, fact_ids=[f.id for f in recalled]))
    return {
        "accumulated_facts": facts,
        "reasoning_trace": state.reasoning_trace + [step("memory", f"Recalled {len(facts)} fact(s)", facts=facts)],
        "_summary": f"{len(facts)} fact(s) recalled",
    }
