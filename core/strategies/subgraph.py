"""Run a strategy subgraph as one main-graph node, so the strategy itself is timed and traced
like any other node while its inner steps stream with their own graph name. The subgraph declares
its output schema (:class:`~core.state.AttemptState`), so its result is the node's update as is."""

from __future__ import annotations

from typing import Any
from collections.abc import Callable

from core.nodes.common import traced
from core.state import AgentState


def subgraph_node(name: str, build: Callable[[], Any]):
    compiled = build()

    @traced(name)
    async def run(state: AgentState, runtime: Any) -> dict:
        return await compiled.ainvoke(state, context=runtime.context)

    return run
