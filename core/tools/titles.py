"""Real titles for hits that carry only a file name as their title.

Some servers (the upstream Modular-RAG MCP server) give every hit the title "[Source: lora.md]"
(:func:`core.tools.parse.label_title` reads it as the file name); the paper's title is in their
``get_document_summary``. A hit whose title is just its source's file name gets the summary's title,
asked once per (collection, document) for the life of the client; a summary that fails or names no
title leaves the file name.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from core.tools.harvest import Harvest
from core.types import RetrievedContext

_TITLE_LINE = re.compile(r"^\s*\*\*\s*(?:标题|title)\s*[:：]?\s*\*\*\s*[:：]?\s*(.+?)\s*$", re.I | re.M)


def needs_title(c: RetrievedContext) -> bool:
    return bool(c.doc_id and c.source) and c.title.strip() == c.source.replace("\\", "/").rsplit("/", 1)[-1]


def summary_title(result: Any) -> str:
    """The title a ``get_document_summary`` result gives: its structured ``title``, else a
    ``**Title:**`` (or ``**标题:**``) line of its text."""
    structured = getattr(result, "structured", None) or {}
    title = structured.get("title") if isinstance(structured, dict) else None
    if isinstance(title, str) and title.strip():
        return title.strip()
    m = _TITLE_LINE.search(getattr(result, "text", "") or "")
    return m.group(1).strip().strip("`") if m else ""


def _summary_body(result: Any) -> str:
    """A summary's text without its ``**Field:**`` lines (ids, paths, counts)."""
    text = getattr(result, "text", "") or ""
    return "\n".join(line for line in text.splitlines() if line.strip() and not line.lstrip().startswith(("**", "#")))


class TitleBook:
    def __init__(self, summary: Callable[[str, str | None], Awaitable[Any]], harvest: Harvest | None = None) -> None:
        self._summary = summary
        self._known: dict[tuple[str | None, str], str] = {}
        self.harvest = harvest or Harvest()  # summaries asked for a title feed the harvested vocabulary

    async def fill(self, contexts: list[RetrievedContext], collection: str | None) -> list[RetrievedContext]:
        for doc_id in dict.fromkeys(c.doc_id for c in contexts if needs_title(c)):
            key = (collection, doc_id)
            if key not in self._known:
                try:
                    result = await self._summary(doc_id, collection)
                    self._known[key] = summary_title(result)
                    self.harvest.add_summary(collection, doc_id, self._known[key], _summary_body(result))
                except Exception:  # noqa: BLE001 - a title is a nicety: the file name stays
                    self._known[key] = ""
        return [c.model_copy(update={"title": title}) if needs_title(c) and (title := self._known.get(
            (collection, c.doc_id))) else c for c in contexts]
