"""Run a strategy subgraph as one main-graph node, so the strategy itself is timed and traced
like any other node while its inner steps stream with their own graph name."""

from __future__ import annotations

from typing import Any, Callable

from core.nodes.common import traced
from core.state import AgentState


def subgraph_node(name: str, build: Callable[[], Any], output_keys: tuple[str, ...]):
    compiled = build()

    @traced(name)
    async def run(state: AgentState, runtime: Any) -> dict:
        out = await compiled.ainvoke(state, context=runtime.context)
        values = out if isinstance(out, dict) else out.model_dump()
        update = {k: values[k] for k in output_keys if k in values}
        n = len(values.get("retrieval_queries") or [])
        update["_summary"] = f"{n} retrieval step(s), {len(values.get('retrieved_contexts') or [])} chunk(s)"
        update["_detail"] = {"queries": values.get("retrieval_queries") or []}
        return update

    return run
