"""Plumbing every node shares: the run-time context, timing/events, and retrieval through MCP.

A node returns a plain state update and reports what it did only by emitting :mod:`core.events`.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field
from typing import Any, Protocol
from collections.abc import Awaitable, Callable

from core.brains.base import Brain
from core.budget import BudgetExceeded
from core.types import Turn
from core.config import Settings
from core.events import NodeFinished, NodeStarted, Notice, RetrievalFinished, RetrievalStarted, SourcesFound
from core.memory.history import turns_from_messages
from core.memory.protocol import FactMemory
from core.state import AgentState
from core.telemetry import collect, emit
from core.tracing.describe import node_summary
from core.tools.hub_client import ToolError
from core.types import RetrievedContext
from core.vocabulary import Vocabulary


class Retriever(Protocol):
    async def search(self, query: str, top_k: int = 5, collection: str | None = None,
                     **scope: Any) -> list[RetrievedContext]: ...


@dataclass(frozen=True)
class Baseline:
    """The offline brain's answer to the turn's question, made before the LLM turn (the turn floor)."""

    draft: str  # as composed, before format_output repairs citations
    contexts: list[RetrievedContext]
    verdict: Any  # its critic's CriticVerdict (None when its turn ended without one)
    seconds: float = 0.0


@dataclass
class AgentContext:
    """What nodes get from LangGraph's run-time context (never checkpointed)."""

    settings: Settings
    brain: Brain
    hub: Retriever
    facts: FactMemory | None = None
    collection: str = "default"
    session_id: str = ""
    vocabulary: Vocabulary = field(default_factory=Vocabulary)  # the collection's names, for the rules
    web: Any = None  # a core.tools.web_search client when the web fallback is on (stage K)
    doc_id: str | None = None  # the one document this turn is answered from (an @paper mention)
    # writes to run once the answer went out (core.memory.pending); None: a node writes at once
    after_answer: list[Callable[[], Awaitable[list]]] | None = None
    baseline: Baseline | None = None  # the turn floor's offline answer (core.nodes.turn_floor); None: no floor


def ctx_of(runtime: Any) -> AgentContext:
    return runtime.context


def history(state: AgentState, settings: Settings) -> list[Turn]:
    """Completed turns before the current question (the current HumanMessage has no answer yet)."""
    return turns_from_messages(state.messages, settings.memory.history_turns)


NodeFn = Callable[[AgentState, Any], Awaitable[dict]]


def traced(name: str, graph: str = "main") -> Callable[[NodeFn], NodeFn]:
    """Emit NodeStarted/NodeFinished (with duration) around a node.

    A node stopped by the turn's LLM budget hands the best draft in its state to the exception
    (:mod:`core.nodes.budget_stop`), so the agent can still deliver it.

    NodeFinished's summary is derived from the events the node emitted (:func:`node_summary`);
    the node's return value goes to LangGraph unchanged.
    """

    def wrap(fn: NodeFn) -> NodeFn:
        @functools.wraps(fn)
        async def run(state: AgentState, runtime: Any) -> dict:
            attempt = state.retry_count
            emit(NodeStarted(node=name, graph=graph, attempt=attempt))
            t0 = time.perf_counter()
            with collect() as seen:
                try:
                    update = await fn(state, runtime)
                except BudgetExceeded as exc:  # the innermost node knows the freshest draft
                    if exc.draft is None:
                        from core.nodes.budget_stop import best_draft

                        exc.draft = best_draft(state, ctx_of(runtime).settings, name, ctx_of(runtime).vocabulary)
                    emit(NodeFinished(node=name, graph=graph, attempt=attempt, ok=False,
                                      duration_ms=(time.perf_counter() - t0) * 1000, summary=str(exc)))
                    raise
                except BaseException as exc:
                    emit(NodeFinished(node=name, graph=graph, attempt=attempt, ok=False,
                                      duration_ms=(time.perf_counter() - t0) * 1000, summary=_one_line(exc)))
                    raise
            emit(NodeFinished(node=name, graph=graph, attempt=attempt, summary=node_summary(seen),
                              duration_ms=(time.perf_counter() - t0) * 1000))
            return update

        return run

    return wrap


def topic_of(state: AgentState) -> str | None:
    """The topic id slot filling scoped this turn to (:mod:`core.scope`), if any."""
    return (state.intent.constraints.get("topic_id") or None) if state.intent is not None else None


async def retrieve(ctx: AgentContext, query: str, *, top_k: int | None = None,
                   entity: str | None = None, topic: str | None = None, **scope: Any) -> list[RetrievedContext]:
    """One retrieval through MCP, reported as events. A tool error yields no contexts and a notice;
    an unreachable hub raises BackendUnavailable (the turn fails with one clear line). With
    ``topic`` only that topic's documents are searched; ``scope`` (``version``, ``as_of``,
    ``doc_id``) is passed to the hub's search only when given; a turn scoped to one document
    (``ctx.doc_id``, an ``@paper`` mention) searches only that document."""
    emit(RetrievalStarted(query=query, entity=entity))
    t0 = time.perf_counter()
    error = None
    scoped = {"topic": topic} if topic else {}  # a retriever without topics is never asked with one
    if ctx.doc_id and "doc_id" not in scope:
        scoped = {"doc_id": ctx.doc_id}  # the named document is narrower than any topic
    try:
        found = await ctx.hub.search(query, top_k or ctx.settings.agent.top_k, ctx.collection, **scoped, **scope)
    except ToolError as exc:
        found, error = [], str(exc)
        emit(Notice(level="warning", message=f"knowledge hub: {exc}", source="retrieval"))
    for c in found:
        c.query, c.entity = query, entity
    emit(RetrievalFinished(query=query, entity=entity, chunk_ids=[c.chunk_id for c in found],
                           duration_ms=(time.perf_counter() - t0) * 1000, error=error))
    if found:
        emit(SourcesFound(contexts=found))
    return found


async def document_summary(ctx: AgentContext, doc_id: str) -> dict | None:
    """The structured ``get_document_summary`` of one document of the turn's collection (title,
    summary, kept versions …), or None when the hub has no such tool, no such document, or refuses:
    every caller then takes its usual path."""
    get = getattr(ctx.hub, "get_document_summary", None)
    if get is None:
        return None
    try:
        found = (await get(doc_id, ctx.collection)).structured
    except Exception:  # noqa: BLE001 - another server's hub, or the document gone
        return None
    return found if isinstance(found, dict) else None


def hub_takes(hub: Any, param: str) -> bool:
    """Whether ``hub``'s search takes ``param`` (``doc_id``, ``per_doc`` …: the bundled hub's does, from
    its tool schema); an upstream server's or a stand-in's without ``searches_by`` is never sent it."""
    searches_by = getattr(hub, "searches_by", None)
    return bool(searches_by(param)) if callable(searches_by) else False


def merge_contexts(*groups: list[RetrievedContext]) -> list[RetrievedContext]:
    """Concatenate, keeping the first occurrence of each chunk id."""
    seen: set[str] = set()
    out: list[RetrievedContext] = []
    for group in groups:
        for c in group:
            if c.chunk_id not in seen:
                seen.add(c.chunk_id)
                out.append(c)
    return out


def token_sink(node: str) -> Callable[[str], None]:
    from core.events import TokenDelta

    def sink(text: str) -> None:
        if text:
            emit(TokenDelta(text=text, node=node))

    return sink


def _one_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__
