"""simple — Direct Execution: one retrieval on the reformulated query, then synthesis.

Follow-ups take this path with the conversation history in their synthesis request.
"""

from __future__ import annotations

import asyncio
from typing import Any

from core.nodes.common import ctx_of, merge_contexts, retrieve, topic_of, traced
from core.state import AgentState
from core.strategies.synthesis import synthesize


@traced("simple")
async def simple_strategy_node(state: AgentState, runtime: Any) -> dict:
    ctx = ctx_of(runtime)
    assert state.intent is not None
    query = state.intent.reformulated_query or state.question
    queries = list(dict.fromkeys([query, *state.refine_queries]))
    groups = await asyncio.gather(*(retrieve(ctx, q, topic=topic_of(state)) for q in queries))
    contexts = merge_contexts(*groups)
    kind = "follow_up" if state.intent.type == "follow_up" else "simple"
    answer = await synthesize(ctx, state, kind, contexts, "simple")
    return {"retrieved_contexts": contexts, "retrieval_queries": queries, "draft_answer": answer}
