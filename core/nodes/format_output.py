"""format_output: check each citation supports its claim (:mod:`core.citations`), drop markers no
retrieved chunk has, number the sources, and append the answer to the history."""

from __future__ import annotations

import re
from typing import Any

from langchain_core.messages import AIMessage

from core.citations import check_citations
from core.events import AnswerReady, Notice
from core.nodes.common import traced
from core.state import AgentState
from core.types import Intent, RetrievedContext, Source
from core.telemetry import emit

_MARKER = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")


def renumber_citations(answer: str, contexts: list[RetrievedContext]) -> tuple[str, list[Source], list[int]]:
    """Map ``[n]`` (1-based into ``contexts``) to sources numbered by first appearance.

    Returns the rewritten answer, the cited sources, and the marker numbers that were removed
    because no chunk retrieved in this turn has that number.
    """
    order: dict[int, int] = {}
    removed: list[int] = []

    def sub(m: re.Match) -> str:
        kept = []
        for raw in m.group(1).split(","):
            n = int(raw)
            if 1 <= n <= len(contexts):
                order.setdefault(n, len(order) + 1)
                kept.append(order[n])
            else:
                removed.append(n)
        return "".join(f"[{k}]" for k in dict.fromkeys(kept))

    text = _MARKER.sub(sub, answer)
    text = re.sub(r"(\[\d+\])(?:\s*\1)+", r"\1", text)
    text = re.sub(r"[ \t]+([.,;:])", r"\1", text)
    sources = []
    for n, idx in sorted(order.items(), key=lambda kv: kv[1]):
        c = contexts[n - 1]
        sources.append(Source(index=idx, chunk_id=c.chunk_id, doc_id=c.doc_id, title=c.title or c.source,
                              source=c.source, breadcrumb=c.breadcrumb, page=c.page,
                              score=c.relevance_score, text=c.content, url=c.url, meta=c.meta))
    return text, sources, removed


@traced("format_output")
async def format_output_node(state: AgentState, runtime: Any) -> dict:
    checked, changes = check_citations(state.draft_answer, state.retrieved_contexts)
    for change in changes:
        emit(Notice(level="info", message=f"Citation {change}", source="format_output"))
    answer, sources, removed = renumber_citations(checked, state.retrieved_contexts)
    if removed:
        msg = f"Removed citation marker(s) {sorted(set(removed))}: no such chunk was retrieved in this turn"
        emit(Notice(level="warning", message=msg, source="format_output"))
    emit(AnswerReady(answer=answer, sources=sources, removed_markers=sorted(set(removed)),
                     citation_changes=changes))
    message = answer_message(state.turn_id, state.intent, answer, sources)
    return {"final_answer": answer, "sources": sources, "messages": [message]}


def answer_message(turn_id: str, intent: Intent | None, answer: str, sources: list[Source]) -> AIMessage:
    """The answer as the conversation history keeps it (with what the next turns' routing reads)."""
    meta = {
        "turn_id": turn_id,
        "intent": intent.type if intent else None,
        "strategy": intent.to_strategy() if intent else None,
        "entities": intent.entities if intent else [],
        "sources": [s.chunk_id for s in sources],
    }
    return AIMessage(content=answer, id=f"{turn_id}-a", additional_kwargs={"paperpilot": meta})
