"""slot_fill: entities, dimensions, constraints and a self-contained reformulated query.

A question comparing two versions of one document ("v1 vs v2 of X") becomes a comparative one
about two version-scoped entities, whichever brain filled the slots (see :mod:`core.doc_versions`)."""

from __future__ import annotations

from typing import Any

from core.doc_versions import versioned_entities
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
    versions = versioned_entities(state.question)  # "what changed between version 1 and 2 of X"
    intent = state.intent.model_copy(update={
        **({"type": "comparative"} if versions else {}),
        "entities": versions or slots.entities,
        "dimensions": slots.dimensions,
        "constraints": slots.constraints,
        "reformulated_query": state.refined_query or slots.reformulated_query or state.question,
    })
    emit(SlotsFilled(intent=intent))
    return {"intent": intent}
