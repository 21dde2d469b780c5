"""slot_fill: entities, dimensions, constraints and a self-contained reformulated query."""

from __future__ import annotations

from typing import Any

from core.events import SlotsFilled
from core.nodes.common import ctx_of, history, traced
from core.state import AgentState
from core.telemetry import emit


@traced("slot_fill")
async def slot_fill_node(state: AgentState, runtime: Any) -> dict:
    ctx = ctx_of(runtime)
    assert state.intent is not None
    turns = history(state, ctx.settings)
    slots = await ctx.brain.fill_slots(state.question, state.intent.type, turns, ctx.vocabulary)
    intent = state.intent.model_copy(update={
        "entities": slots.entities,
        "dimensions": slots.dimensions,
        "constraints": slots.constraints,
        "reformulated_query": state.refined_query or slots.reformulated_query or state.question,
    })
    emit(SlotsFilled(intent=intent))
    return {"intent": intent}
