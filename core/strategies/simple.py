"""simple — Direct Execution: one retrieval on the reformulated query, then synthesis.

Follow-ups take this path with the conversation history in their synthesis request.
"""

from __future__ import annotations

import asyncio
from typing import Any

from core.brains.offline.evidence import gist_form, profile
from core.brains.offline.sides import gist_paper
from core.events import DraftReady
from core.nodes.common import AgentContext, ctx_of, hub_takes, merge_contexts, retrieve, topic_of, traced
from core.state import AgentState
from core.strategies.library import abstract_chunks, library_answer
from core.strategies.synthesis import synthesize
from core.telemetry import emit
from core.types import RetrievedContext

ABSTRACT_CHUNKS = 2  # chunks of a paper's abstract fetched for a question about the paper as a whole


@traced("simple")
async def simple_strategy_node(state: AgentState, runtime: Any) -> dict:
    ctx = ctx_of(runtime)
    assert state.intent is not None
    if found := await library_answer(ctx, state):
        answer, contexts = found  # what the library holds: its list of papers answers, not a search
        emit(DraftReady(answer=answer, node="simple"))
        return {"retrieved_contexts": contexts, "draft_answer": answer}
    query = state.intent.reformulated_query or state.question
    queries = list(dict.fromkeys([query, *state.refine_queries]))
    groups = await asyncio.gather(*(retrieve(ctx, q, topic=topic_of(state)) for q in queries))
    contexts = merge_contexts(*groups)
    contexts = merge_contexts(await paper_abstract(ctx, state, contexts), contexts)
    kind = "follow_up" if state.intent.type == "follow_up" else "simple"
    answer = await synthesize(ctx, state, kind, contexts, "simple")
    return {"retrieved_contexts": contexts, "retrieval_queries": queries, "draft_answer": answer}


async def paper_abstract(ctx: AgentContext, state: AgentState, contexts: list[RetrievedContext]) -> list[RetrievedContext]:
    """For a question about one paper as a whole ("What is X about?", "the main idea of X",
    :attr:`~core.brains.offline.evidence.Profile.whole_paper`) whose paper was retrieved: the chunks of
    its abstract, found by a search of that document for the first sentence of the summary the hub
    keeps for it (taken from its abstract unless an LLM wrote the summary at ingest; the brain quotes
    only chunks whose section is the abstract, so other chunks found so leave the answer as it was).
    A search of the question's own words finds the chunks that repeat the paper's name, seldom its
    abstract. [] when the hub cannot search one document or has no summary for it."""
    if not gist_form(state.question):  # most questions: no profile to build (its first costs about a millisecond)
        return []
    prof = profile(state.question, state.intent, vocab=ctx.vocabulary)
    get_summary = getattr(ctx.hub, "get_document_summary", None)
    if not prof.whole_paper or get_summary is None or not hub_takes(ctx.hub, "doc_id"):
        return []
    doc = gist_paper(contexts, prof)
    return [] if doc is None else await abstract_chunks(ctx, doc, ABSTRACT_CHUNKS)

