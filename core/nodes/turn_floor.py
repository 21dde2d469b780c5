"""turn_floor: an LLM turn's answer is delivered only at or above the offline brain's own answer.

Placed before save_memory when the agent has a floor brain (``llm.turn_floor``, an LLM brain):
:class:`core.agent.Agent` has the offline brain answer the question first, on its own, and puts that
answer in the run-time context (:class:`core.nodes.common.Baseline`). Here the LLM turn's final draft
is compared with it (:func:`core.brains.llm.floor.turn_floor_problems`, each over its own evidence).
Below it, the offline answer, its evidence and its critic's verdict replace the LLM turn's, and a
notice says which condition failed, so memory and the formatter only ever see the delivered answer.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from core.brains.llm.floor import turn_floor_problems
from core.events import CriticVerdictIssued, Notice
from core.nodes.common import Baseline, ctx_of, traced
from core.state import AgentState
from core.telemetry import capture, emit

DELIVERED_NOTE = "delivered the offline answer"  # what eval qa counts as a turn given the offline answer


@traced("turn_floor")
async def turn_floor_node(state: AgentState, runtime: Any) -> dict:
    base = ctx_of(runtime).baseline
    if base is None:  # the offline answer could not be made (the trace says why): nothing to compare with
        return {}
    problems = turn_floor_problems(state.question, state.draft_answer, state.retrieved_contexts, base.draft,
                                   base.contexts)
    if not problems:
        emit(Notice(level="info", source="turn_floor",
                    message="the LLM turn's answer reaches the offline answer's floor; delivered as written"))
        return {}
    more = f" (+{len(problems) - 2} more)" if len(problems) > 2 else ""
    emit(Notice(level="warning", source="turn_floor",
                message=f"the LLM turn's answer is below the offline answer: {'; '.join(problems[:2])}{more}; "
                        f"{DELIVERED_NOTE}"))
    update: dict = {"draft_answer": base.draft, "retrieved_contexts": base.contexts}
    if base.verdict is not None:
        emit(CriticVerdictIssued(verdict=base.verdict, attempt=state.retry_count))
        update["critic_verdict"] = base.verdict
    return update


async def offline_answer(graph: Any, ctx: Any, inp: dict, deadline_s: float | None) -> tuple[Baseline | None, str]:
    """The floor brain's answer to a turn's input (``ctx.brain`` is the floor brain; ``graph`` is
    compiled without a checkpointer and ``inp`` carries the session's earlier messages): (the
    baseline, "") or (None, why it could not be made). Its events are kept out of the turn's stream:
    it is a yardstick, not a second answer. It remembers nothing (``ctx.facts`` is None)."""
    events: list = []
    t0 = time.perf_counter()
    try:
        with capture(events.append):
            async with asyncio.timeout(deadline_s or None):
                state = await graph.ainvoke(inp, {"recursion_limit": 200}, context=ctx)
    except TimeoutError:
        return None, f"the offline answer took longer than {deadline_s:g} s"
    except Exception as exc:  # noqa: BLE001 - no floor for this turn, said in one line; the turn goes on
        return None, f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
    return Baseline(draft=state.get("draft_answer", ""), contexts=list(state.get("retrieved_contexts", [])),
                    verdict=state.get("critic_verdict"), seconds=time.perf_counter() - t0), ""
