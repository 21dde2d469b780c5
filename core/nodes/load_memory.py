"""load_memory: recall long-term facts relevant to the question (used only at synthesis).

Facts that read like instructions (:mod:`core.memory.hygiene`) are left out unless the user pinned
them: a store written before memory hygiene existed may hold planted ones, and they must not reach a
prompt. ``paperpilot memory audit`` lists them for deletion. A fact learnt from a document goes to
the brain attributed ("<title> says: ..."), so it is used as that document's claim, never as
something the agent knows (:meth:`core.memory.protocol.RecalledFact.as_prior`).

Facts this session wrote itself are left out by the store (pinned ones excepted): the answer shows recalled
facts as "From earlier sessions", and this session's own turns already hold what it learnt. The store
leaves them out before it takes the top k, so they neither crowd out an earlier session's fact nor have
their recall counters (eviction order) bumped.
"""

from __future__ import annotations

from typing import Any

from core.events import MemoryRecalled, Notice
from core.memory.hygiene import is_instruction_like
from core.nodes.common import ctx_of, traced
from core.state import AgentState
from core.telemetry import emit


@traced("load_memory")
async def load_memory_node(state: AgentState, runtime: Any) -> dict:
    ctx = ctx_of(runtime)
    mem = ctx.settings.memory
    if ctx.facts is None or not mem.enabled or mem.recall_top_k == 0 or state.retry_count > 0:
        return {}
    recalled = await ctx.facts.recall(state.question, mem.recall_top_k, exclude_session=ctx.session_id or "")
    kept = [f for f in recalled if f.pinned or not is_instruction_like(f.content)]
    if len(kept) < len(recalled):
        emit(Notice(level="warning", source="memory",
                    message=f"left out {len(recalled) - len(kept)} remembered fact(s) that read like instructions; "
                            "review them with: paperpilot memory audit"))
    facts = [f.as_prior() for f in kept]
    emit(MemoryRecalled(facts=facts, fact_ids=[f.id for f in kept]))
    return {"accumulated_facts": facts}
