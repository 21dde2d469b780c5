"""The knowledge hub's collections as the app and ``paperpilot ask`` show them.

Read from the hub's ``list_collections`` tool (with its stats: document and chunk counts, document
ids and titles) through whatever hub client the agent holds, so a daemon, a stdio hub and an
upstream MCP server are asked the same way. :func:`unknown_line` is the one line a user sees for a
collection name the hub does not have: it lists the ones it has, or says how to make one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from paperpilot_tui.slash import short_title

EMPTY_HINT = "No collections yet — `paperpilot ingest PATH --collection NAME` makes one."


@dataclass(frozen=True)
class Collection:
    """One collection: its name, counts (None when the hub does not say) and documents (id, title)."""

    name: str
    documents: int | None = None
    chunks: int | None = None
    docs: tuple[tuple[str, str], ...] = ()

    def counts(self) -> str:
        """``12 documents, 340 chunks``, or what of it the hub said."""
        parts = []
        if self.documents is not None:
            parts.append(f"{self.documents} document{'' if self.documents == 1 else 's'}")
        if self.chunks is not None:
            parts.append(f"{self.chunks} chunk{'' if self.chunks == 1 else 's'}")
        return ", ".join(parts)


def parse(structured: Any) -> list[Collection]:
    """Collections from ``list_collections``' structured content, sorted by name; entries that are
    not well-formed (an upstream server's own shape) are skipped, never raised on."""
    out = []
    data = structured if isinstance(structured, dict) else {}
    for col in data.get("collections") or []:
        if not isinstance(col, dict) or not isinstance(col.get("name"), str):
            continue
        docs = tuple((str(d.get("doc_id") or ""), str(d.get("title") or d.get("doc_id") or ""))
                     for d in col.get("documents") or [] if isinstance(d, dict))
        count = col.get("document_count")
        chunks = col.get("chunk_count")
        out.append(Collection(col["name"], count if isinstance(count, int) else (len(docs) if docs else None),
                              chunks if isinstance(chunks, int) else None, docs))
    return sorted(out, key=lambda c: c.name)


async def fetch(hub: Any) -> list[Collection]:
    """The hub's collections (raises what the hub client raises: a tool or backend error)."""
    res = await hub.list_collections()
    return parse(getattr(res, "structured", None))


BUNDLED_EXAMPLE = "Compare LoRA and QLoRA in memory use and accuracy"


def example_question(collection: Collection | None) -> str | None:
    """A question the first screen can suggest for this collection: the bundled comparison where the
    collection holds both its papers, else one about the document with the shortest name (a title's
    part before a colon, "MapReduce: Simplified …" → "MapReduce"); None when it lists no documents."""
    titles = [t.strip() for _, t in (collection.docs if collection else ()) if t.strip()]
    if not titles:
        return None
    if all(any(t.lower().startswith(name) for t in titles) for name in ("lora", "qlora")):
        return BUNDLED_EXAMPLE
    names = [short_title(t) for t in titles]
    return f"What does {min(names, key=lambda n: (len(n), n))} propose?"


def unknown_line(name: str, known: list[Collection]) -> str:
    """One line: ``name`` is not a collection of the hub; the ones it has, or how to make one."""
    if not known:
        return f"unknown collection {name!r}. {EMPTY_HINT}"
    listed = ", ".join(f"{c.name} ({c.counts()})" if c.counts() else c.name for c in known)
    return f"unknown collection {name!r}; the hub has: {listed}"


async def check(hub: Any, name: str) -> str | None:
    """None when the hub has collection ``name`` or cannot list its collections (an upstream server
    without the tool: nothing to check against); else :func:`unknown_line`."""
    if not hasattr(hub, "list_collections"):
        return None
    try:
        known = await fetch(hub)
    except Exception:  # noqa: BLE001 - listing is a courtesy check; the question itself still reports
        return None
    return None if any(c.name == name for c in known) else unknown_line(name, known)
