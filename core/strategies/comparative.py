"""comparative — ReWOO: plan every retrieval up front (one per entity), run them in parallel,
then synthesize an entity × dimension comparison. No brain call between planning and synthesis."""

from __future__ import annotations

import asyncio
from typing import Any

from core.events import PlanUpdated
from core.nodes.common import ctx_of, merge_contexts, retrieve, topic_of, traced
from core.state import AgentState
from core.strategies.synthesis import synthesize
from core.telemetry import emit


def plan_queries(entities: list[str], dimensions: list[str], question: str) -> list[tuple[str | None, str]]:
    """(entity, query) pairs: one retrieval per entity, phrased with the comparison dimensions."""
    if not entities:
        return [(None, question)]
    dims = " ".join(dimensions)
    return [(e, f"{e} {dims}".strip() if dims else f"{e}: {question}") for e in entities]


@traced("comparative")
async def comparative_strategy_node(state: AgentState, runtime: Any) -> dict:
    ctx = ctx_of(runtime)
    assert state.intent is not None
    intent = state.intent
    planned = plan_queries(intent.entities, intent.dimensions, intent.reformulated_query or state.question)
    planned += [(None, q) for q in state.refine_queries if q not in {p[1] for p in planned}]
    emit(PlanUpdated(sub_questions=[q for _, q in planned], reason="ReWOO: one retrieval per entity"))
    groups = await asyncio.gather(*(retrieve(ctx, q, entity=e, topic=topic_of(state)) for e, q in planned))
    contexts = merge_contexts(*groups)
    answer = await synthesize(ctx, state, "comparative", contexts, "comparative")
    queries = [q for _, q in planned]
    return {"retrieved_contexts": contexts, "retrieval_queries": queries, "draft_answer": answer}
