"""route: classify the question's intent (local router or LLM), with a real confidence."""

from __future__ import annotations

import time
from typing import Any

from core.events import IntentClassified
from core.nodes.common import ctx_of, history, traced
from core.scope import without_topic_clause
from core.state import AgentState
from core.types import Intent
from core.telemetry import emit


@traced("route")
async def route_node(state: AgentState, runtime: Any) -> dict:
    ctx = ctx_of(runtime)
    turns = history(state, ctx.settings)
    t0 = time.perf_counter()
    decision = await ctx.brain.classify(without_topic_clause(state.question), turns)  # core.scope
    latency = (time.perf_counter() - t0) * 1000
    intent_type = decision.type
    if intent_type == "follow_up" and not turns:
        # A first turn has nothing to follow up on, whatever the classifier thinks.
        intent_type = "factual"
    intent = Intent(type=intent_type, confidence=decision.confidence, router=decision.router,
                    reformulated_query=state.question)
    emit(IntentClassified(intent=intent, latency_ms=latency))
    return {"intent": intent}
