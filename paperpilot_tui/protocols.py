"""What the app needs from the agent and the stores, as small ``Protocol``s.

The app is typed against these, not against ``core.agent.Agent`` or the SQLite stores, so it
imports no LangGraph before first paint and tests can hand it any object with the same shape
(``core.stores.Stores`` and ``core.agent.Agent`` satisfy them).
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any, Protocol
from collections.abc import AsyncIterator, Callable

from core.events import Event
from core.research.types import Outline


class Agent(Protocol):
    brain_name: str
    hub_status: str
    collection: str

    def run_turn(self, question: str, session_id: str | None = None, *,
                 doc_id: str | None = None) -> AsyncIterator[Event]:
        """The turn's typed events; the last is TurnFinished or TurnFailed (``doc_id``: answered from
        that one document; the app passes it only for an ``@paper`` question)."""

    def run_research(self, topic: str | None = None, session_id: str | None = None, *, clarify: bool = True,
                     answers: dict[int, str] | None = None, outline: Outline | None = None,
                     confirm: bool = False, collection: str | None = None) -> AsyncIterator[Event]:
        """Advance the session's deep research from its checkpointed stage until it needs the user:
        a new ``topic`` → ClarificationAsked + ResearchWaiting(needs="answers"); ``answers`` ({} skips)
        → OutlineProposed + ResearchWaiting(needs="outline"); ``outline`` → PointSearched×N, the
        review's TokenDelta(node="review"), ReviewFinished. Failure is TurnFailed."""

    async def history(self, session_id: str) -> list[Any]:
        """Earlier turns of a session (objects with ``question`` and ``answer``)."""


class FactBrowser(Protocol):
    def list(self, limit: int | None = None, query: str | None = None) -> list[Any]: ...
    def get(self, fact_id: int) -> Any: ...
    def add(self, text: str, pinned: bool = False) -> Any: ...
    def edit(self, fact_id: int, text: str) -> Any: ...
    def delete(self, fact_id: int) -> bool: ...
    def pin(self, fact_id: int) -> Any: ...
    def unpin(self, fact_id: int) -> Any: ...


class SessionBrowser(Protocol):
    def list(self, limit: int | None = None) -> list[Any]: ...
    def rename(self, session_id: str, title: str) -> Any: ...
    def delete(self, session_id: str, checkpoints_path: Path | None = None) -> bool: ...


class TraceBrowser(Protocol):
    def list(self, session_id: str | None = None, limit: int | None = 50) -> list[Any]: ...
    def resolve(self, trace_id: str) -> str | None: ...
    def get(self, trace_id: str) -> Any: ...


class Stores(Protocol):
    facts: FactBrowser
    sessions: SessionBrowser
    traces: TraceBrowser
    checkpoints: Path | None


AgentFactory = Callable[[Any], AbstractAsyncContextManager[Agent]]  # settings -> open agent
StoresFactory = Callable[[Any], Stores]  # settings -> open stores (called in a worker thread)
