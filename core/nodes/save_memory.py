"""save_memory: memorize facts from an answer the critic passed on its merits (never a forced pass).

Only facts that pass :func:`core.nodes.fact_sources.screen` are kept: not instruction-like, stated
by the answer and supported by a retrieved chunk, which is recorded as the fact's provenance. Then
:func:`core.nodes.fact_vetting.vet` refuses facts from a document with instruction-like text and
facts another indexed source contradicts.

The node decides and extracts inside the turn (an LLM brain's extraction call stays in the turn's
budget and trace). The write itself (vetting's hub calls, the facts' embeddings, the SQLite
transaction) is what costs: when the agent takes it (``AgentContext.after_answer``), it runs after
the answer went out (:mod:`core.memory.pending`); otherwise, here.
"""

from __future__ import annotations

import functools
from typing import Any

from core.events import Event, MemoryWritten
from core.nodes.common import AgentContext, ctx_of, traced
from core.nodes.fact_sources import Screened, screen
from core.nodes.fact_vetting import vet
from core.state import AgentState
from core.telemetry import capture, emit
from core.types import RetrievedContext


@traced("save_memory")
async def save_memory_node(state: AgentState, runtime: Any) -> dict:
    ctx = ctx_of(runtime)
    verdict = state.critic_verdict
    reason = ""
    if ctx.facts is None or not ctx.settings.memory.enabled:
        reason = "memory off"
    elif verdict is None or not verdict.passed:
        reason = "critic did not pass"
    elif verdict.forced:
        reason = "pass was forced after max retries"
    if reason:
        emit(MemoryWritten(facts=[], skipped_reason=reason))
        return {}
    facts = await ctx.brain.extract_facts(state.question, state.draft_answer, state.retrieved_contexts)
    screened = screen(facts, state.draft_answer, state.retrieved_contexts)
    if not screened.facts:  # nothing to vet or write: said now, like a skip
        emit(_written_nothing(screened))
        return {}
    write = functools.partial(write_facts, ctx, screened, state.question, list(state.retrieved_contexts))
    if ctx.after_answer is not None:
        ctx.after_answer.append(write)
    else:
        for event in await write():
            emit(event)
    return {}


async def write_facts(ctx: AgentContext, screened: Screened, question: str,
                      contexts: list[RetrievedContext]) -> list[Event]:
    """Vet the screened facts and write the survivors; the events this reports, MemoryWritten last.
    A failure is reported, never raised: the turn it belongs to has been answered."""
    events: list[Event] = []
    with capture(events.append):  # what the hub calls report outside the graph's stream
        try:
            kept = await vet(screened, ctx.hub, ctx.collection, ctx.settings.agent.top_k, contexts)
            if not kept.facts:
                events.append(_written_nothing(kept))
                return events
            result = await ctx.facts.memorize(kept.facts, source_question=question, session_id=ctx.session_id,
                                              sources=kept.sources)
        except Exception as exc:  # noqa: BLE001 - one line in the trace and the memory pane
            events.append(MemoryWritten(facts=[], skipped_reason=f"the write failed: {type(exc).__name__}: "
                                                                 f"{exc}".splitlines()[0]))
            return events
    refused = kept.refused + [f"{f} — instruction-like" for f in result.rejected]
    events.append(MemoryWritten(facts=result.facts, added=result.added, updated=result.updated, refused=refused))
    return events


def _written_nothing(kept: Screened) -> MemoryWritten:
    return MemoryWritten(facts=[], refused=kept.refused,
                         skipped_reason="no fact worth keeping" if not kept.refused else
                         "no fact passed the memory hygiene checks")
