"""web_fallback (stage K): when the knowledge base cannot support an answer, search beyond it.

It runs instead of delivering a forced pass (the retries are used up and the critic still fails)
and, with ``agent.web_search_fallback.on_no_evidence``, instead of delivering "the knowledge base
holds no evidence". The provider's results (arXiv abstracts, web page extracts) become contexts that
carry their URLs; the answer is written again over them and the knowledge base's contexts, and the
critic judges it once: a pass is delivered as a pass on its merits (so its facts are memorized);
a failing draft, an empty result or a search error keeps the local answer, with one notice.
The node is in the graph only when a client could be made (:func:`core.graph.build_graph`).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from typing import Any

from core.events import CriticVerdictIssued, Notice, SourcesFound, WebSearched
from core.nodes.common import ctx_of, history, merge_contexts, traced
from core.state import AgentState
from core.telemetry import emit
from core.tools.web_search import WebResult, WebSearchError
from core.types import RetrievedContext, SynthesisRequest

# Both brains' abstentions ("The knowledge base holds no evidence about …"), with no citation marker.
_NO_EVIDENCE = re.compile(r"knowledge base (?:holds|has|contains) no evidence|no evidence in the knowledge base"
                          r"|not found in the knowledge base", re.I)
_MARKER = re.compile(r"\[\d+\]")


def abstains(answer: str) -> bool:
    """The answer says the knowledge base has nothing on the question, and cites nothing."""
    return bool(_NO_EVIDENCE.search(answer)) and not _MARKER.search(answer)


def needs_web(state: AgentState, on_no_evidence: bool) -> bool:
    """A forced pass, or (``on_no_evidence``) an abstention; never twice in a turn."""
    verdict = state.critic_verdict
    if verdict is None or state.used_web_fallback or not verdict.passed:
        return False
    return verdict.forced or (on_no_evidence and abstains(state.draft_answer))


def with_web(gate: Callable[[AgentState], str], on_no_evidence: bool) -> Callable[[AgentState], str]:
    """``gate`` (critic's or retry_refine's), sending what it would deliver to ``web`` when
    :func:`needs_web` says the knowledge base could not support it."""

    def routed(state: AgentState) -> str:
        choice = gate(state)
        return "web" if choice in ("pass", "stop") and needs_web(state, on_no_evidence) else choice

    routed.__name__ = f"{gate.__name__}_or_web"
    return routed


def web_contexts(results: list[WebResult], provider: str, query: str) -> list[RetrievedContext]:
    """Search results as contexts: the text to cite, the page's title, its URL."""
    out = []
    for n, r in enumerate(results, 1):
        year = r.published[:4] if r.published[:4].isdigit() else ""
        authors = ", ".join(r.authors[:3]) + (" et al." if len(r.authors) > 3 else "")
        out.append(RetrievedContext(
            content=r.content, source=r.url, title=r.title, doc_id=f"{provider}:{r.ref or r.url}",
            chunk_id=f"web:{provider}:{r.ref or n}", relevance_score=r.score, url=r.url, query=query,
            breadcrumb=" · ".join(x for x in (provider if provider == "arxiv" else "web", authors, year) if x)))
    return out


@traced("web_fallback")
async def web_fallback_node(state: AgentState, runtime: Any) -> dict:
    ctx = ctx_of(runtime)
    client, settings = ctx.web, ctx.settings.agent.web_search_fallback
    assert client is not None and state.intent is not None
    query = state.intent.reformulated_query or state.question
    t0 = time.perf_counter()
    done: dict = {"provider": client.name, "query": query}

    def ms() -> float:
        return (time.perf_counter() - t0) * 1000

    try:
        results = await asyncio.to_thread(client.search, query, settings.max_results)
    except WebSearchError as exc:
        emit(Notice(level="warning", source="web_fallback", message=f"web search fallback: {exc}; keeping the local answer"))
        emit(WebSearched(**done, error=str(exc), duration_ms=ms()))
        return {"web_query": query}
    if not results:
        emit(Notice(level="info", source="web_fallback",
                    message=f"web search fallback ({client.name}) found nothing; keeping the local answer"))
        emit(WebSearched(**done, duration_ms=ms()))
        return {"web_query": query}
    found = web_contexts(results, client.name, query)
    emit(SourcesFound(contexts=found))
    local = [] if abstains(state.draft_answer) else state.retrieved_contexts
    contexts = merge_contexts(local, found)
    follow_up = state.intent.type == "follow_up"
    request = SynthesisRequest(
        kind="follow_up" if follow_up else state.intent.to_strategy(), question=state.question,
        intent=state.intent, contexts=contexts, sub_questions=state.sub_questions,
        prior_facts=state.accumulated_facts, history=history(state, ctx.settings) if follow_up else [])
    draft = await ctx.brain.synthesize(request)  # not streamed: the local answer was, and stays until this passes
    verdict = await ctx.brain.critique(state.question, state.intent, contexts, draft, state.sub_questions)
    update = {"web_query": query, "web_result_count": len(results)}
    if not verdict.passed or abstains(draft):
        emit(Notice(level="warning", source="web_fallback",
                    message=f"the answer written from {len(results)} {client.name} result(s) did not satisfy the "
                            f"critic ({verdict.score:.1f}/10); keeping the local answer"))
        emit(WebSearched(**done, result_count=len(results), urls=[r.url for r in results], duration_ms=ms()))
        return update
    emit(CriticVerdictIssued(verdict=verdict, attempt=state.retry_count))
    emit(WebSearched(**done, result_count=len(results), urls=[r.url for r in results], used=True, duration_ms=ms()))
    return {**update, "used_web_fallback": True, "draft_answer": draft, "retrieved_contexts": contexts,
            "critic_verdict": verdict}
