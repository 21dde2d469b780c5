"""Coalesce concurrent hub searches into one ``query_knowledge_hub_batch`` call (the DataLoader pattern).

A hub search costs a few milliseconds of CPU on each side of the pipe (MCP request handling, JSON,
schema validation, parsing) whatever it asks, so on a small machine concurrent searches on one
session take as long as the same searches one after another. :class:`SearchBatcher` collects the
searches issued in the same event-loop turn with the same arguments but the query (``top_k``,
collection, scope) and sends them as one batch call, which also cites each chunk once.

- A lone search, or a server without the batch tool (an upstream server), is sent as
  ``query_knowledge_hub``, exactly as without batching.
- Every caller gets its own fresh :class:`~core.types.RetrievedContext` objects, the ones a single
  call would have given (same order, scores and fields).
- A batch the hub refuses (a bad query among good ones, a bad collection) is resent one query at a
  time, so each caller gets what its own call gets: its hits or its own ``ToolError``.
  ``BackendUnavailable`` (no hub) reaches every waiting caller at once.
- A cancelled caller leaves the others waiting; a batch whose callers were all cancelled is cancelled.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from core.errors import BackendUnavailable
from core.tools.parse import parse_batch_result, parse_search_result
from core.types import RetrievedContext

SINGLE, BATCH = "query_knowledge_hub", "query_knowledge_hub_batch"
MAX_BATCH = 32  # the hub's limit on queries per batch call

Key = tuple[tuple[str, Any], ...]  # the search's arguments but the query, in a fixed order
Call = Callable[[str, dict[str, Any]], Awaitable[Any]]  # (tool, args) -> ToolResult
_Waiter = tuple[str, asyncio.Future]


class SearchBatcher:
    """Send concurrent searches through ``call`` (HubClient's), batched when ``has_batch()``."""

    def __init__(self, call: Call, has_batch: Callable[[], bool]) -> None:
        self._call, self._has_batch = call, has_batch
        self._pending: dict[Key, list[_Waiter]] = {}
        self._sending: set[asyncio.Task] = set()  # strong references to the batches in flight

    async def search(self, key: Key, query: str) -> list[RetrievedContext]:
        """``query``'s hits, sent alone or with the searches of this loop turn that share ``key``."""
        loop = asyncio.get_running_loop()
        group = self._pending.get(key)
        if group is None:
            group = self._pending[key] = []
            loop.call_soon(self._flush, key, group)  # runs once the tasks started this turn have asked
        fut: asyncio.Future = loop.create_future()
        group.append((query, fut))
        if len(group) >= MAX_BATCH:  # full: the next search starts a new group
            del self._pending[key]
        return await fut  # cancelling this caller cancels only its own future

    def _flush(self, key: Key, group: list[_Waiter]) -> None:
        if self._pending.get(key) is group:
            del self._pending[key]
        waiters = [(q, f) for q, f in group if not f.done()]
        if not waiters:
            return
        task = asyncio.ensure_future(self._send(dict(key), waiters))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

        def abandon(_: asyncio.Future) -> None:  # every caller gone: stop the call too
            if all(f.cancelled() for _, f in waiters):
                task.cancel()

        for _, f in waiters:
            f.add_done_callback(abandon)

    async def _send(self, args: dict[str, Any], waiters: list[_Waiter]) -> None:
        if len(waiters) > 1 and self._has_batch():
            queries = [q for q, _ in waiters]
            try:
                res = await self._call(BATCH, {"queries": queries, **args})
                results = parse_batch_result(res.structured, queries)
            except BackendUnavailable as exc:
                return _fail(waiters, exc)
            except Exception:  # noqa: BLE001 - refused or malformed: each query on its own says why
                pass
            else:
                for (_, f), hits in zip(waiters, results):
                    if not f.done():
                        f.set_result(hits)
                return
        await asyncio.gather(*(self._one(args, q, f) for q, f in waiters))

    async def _one(self, args: dict[str, Any], query: str, fut: asyncio.Future) -> None:
        if fut.done():
            return
        try:
            res = await self._call(SINGLE, {"query": query, **args})
            hits = parse_search_result(res.texts, res.structured, query=query)
        except Exception as exc:  # noqa: BLE001 - the caller's own error, raised in the caller
            if not fut.done():
                fut.set_exception(exc)
            return
        if not fut.done():
            fut.set_result(hits)


def _fail(waiters: list[_Waiter], exc: BaseException) -> None:
    for _, f in waiters:
        if not f.done():
            f.set_exception(exc)
