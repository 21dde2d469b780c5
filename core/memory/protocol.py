"""What the graph needs from long-term memory (implemented by ``core.memory.facts``)."""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel


class RecalledFact(BaseModel):
    id: int
    content: str
    score: float = 0.0
    pinned: bool = False
    doc_title: str = ""  # the document it was learnt from ("" when pinned, added by hand or unknown)
    documents: int = 0  # how many documents supported it
    session_id: str = ""  # the session that last wrote it ("" when unknown)
    doc_id: str = ""  # the document it was learnt from ("" when pinned, added by hand or unknown)
    updated: float = 0.0  # when it was last written (epoch seconds; 0 when unknown)
    checked: float = 0.0  # the time of the paper's version it was last checked against, the hub's (0: never)
    said: bool | None = None  # that check's verdict: its paper still says it (None: never checked)

    def as_prior(self) -> str:
        """How the fact reaches a prompt. A fact learnt from a document is that document's claim, so it
        is quoted with its source ("<title> says: ..."), never stated as the agent's own knowledge;
        the user's own (pinned or hand-added) facts read as they were written."""
        if self.pinned or not self.doc_title:
            return self.content
        others = self.documents - 1
        more = f" (and {others} other document{'s' if others > 1 else ''})" if others > 0 else ""
        return f"{self.doc_title}{more} says: {self.content}"


class FactSource(BaseModel):
    """The retrieved chunk that supports a fact (its provenance)."""

    doc_id: str = ""
    title: str = ""
    chunk_id: str = ""


class MemoryWriteResult(BaseModel):
    added: int = 0
    updated: int = 0
    evicted: int = 0
    facts: list[str] = []
    rejected: list[str] = []  # refused as instruction-like (core.memory.hygiene)


class FactMemory(Protocol):
    """The agent also calls ``prefetch(question)`` at a turn's start when a store has it (optional:
    :class:`core.memory.facts.FactStore` starts embedding the question for the coming recall), and
    ``mark_checked([(id, version time, said)])`` when recalled facts were checked against a paper read
    again since they were learnt (optional: the store keeps the version and the verdict, so they are not
    checked again until the paper is read again)."""

    async def recall(self, question: str, top_k: int, *, exclude_session: str = "") -> list[RecalledFact]:
        """``exclude_session``: leave out that session's unpinned facts (they take no place in ``top_k``)."""
        ...

    async def memorize(
        self, facts: list[str], *, source_question: str, session_id: str,
        sources: list[FactSource | None] | None = None,
    ) -> MemoryWriteResult: ...
