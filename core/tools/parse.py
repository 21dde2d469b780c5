"""Turn a knowledge-hub tool result into :class:`RetrievedContext` objects.

Order: MCP ``structuredContent`` if present; else the fenced ```json block after
``**References (JSON):**`` in any text block; else a Markdown fallback. Scores from a foreign
server are carried as given and never thresholded.
"""

from __future__ import annotations

import json
import re
from typing import Any

from core.state import RetrievedContext

_FENCE = re.compile(r"```json\s*(\{.*?\})\s*```", re.S)


def find_json_block(texts: list[str]) -> dict | None:
    """The last fenced JSON object holding ``citations`` in any of the text blocks."""
    for text in reversed(texts):
        for m in reversed(list(_FENCE.finditer(text))):
            try:
                data = json.loads(m.group(1))
            except json.JSONDecodeError:
                continue
            if isinstance(data, dict) and "citations" in data:
                return data
    return None


def _int_or_none(v: Any) -> int | None:
    try:
        return int(v) if v is not None and v != "" else None
    except (TypeError, ValueError):
        return None


def citation_to_context(c: dict, query: str = "") -> RetrievedContext:
    """One citation dict (structured or References-JSON form) as a context."""
    meta = c.get("metadata") or {}
    chunk_id = str(c.get("chunk_id") or meta.get("chunk_id") or "")
    doc_id = str(meta.get("doc_id") or c.get("doc_id") or "")
    if not doc_id and chunk_id:
        # Upstream omits doc_id; its get_document_summary accepts a chunk-id prefix.
        doc_id = chunk_id.rsplit("_", 1)[0] if "_" in chunk_id else chunk_id
    source = str(c.get("source") or "")
    return RetrievedContext(
        content=str(c.get("text") or c.get("content") or c.get("text_snippet") or ""),
        source=source,
        title=str(meta.get("title") or c.get("title") or source.rsplit("/", 1)[-1]),
        doc_id=doc_id,
        chunk_id=chunk_id,
        relevance_score=float(c.get("score") or 0.0),
        chunk_index=_int_or_none(meta.get("chunk_index")),
        breadcrumb=str(meta.get("breadcrumb") or c.get("breadcrumb") or ""),
        page=_int_or_none(c.get("page") if c.get("page") is not None else meta.get("page")),
        url=c.get("url") or meta.get("url"),
        query=query,
    )


def parse_markdown(texts: list[str], query: str = "") -> list[RetrievedContext]:
    """Last-resort parse of a Markdown hit list (overridden by the hub issue's fuller parser)."""
    return []


def parse_search_result(
    texts: list[str], structured: dict | None, query: str = ""
) -> list[RetrievedContext]:
    """Contexts from one ``query_knowledge_hub`` result, best first."""
    if structured and isinstance(structured.get("citations"), list):
        return [citation_to_context(c, query) for c in structured["citations"]]
    block = find_json_block(texts)
    if block is not None:
        return [citation_to_context(c, query) for c in block.get("citations") or []]
    return parse_markdown(texts, query)
