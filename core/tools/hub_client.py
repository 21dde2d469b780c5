"""One persistent MCP session to the knowledge hub, with the RAG wrapper on top.

The session (:func:`core.tools.mcp_session.open_session`) is opened once per run and owned by a
dedicated task, so tool calls may come from any task (the comparative strategy calls in
parallel). If the server dies, the call reconnects once and reports it through ``notices``.
Each hub tool is one small method over :meth:`HubClient.call`.

Deadlines: opening a session is bounded by ``mcp.connect_timeout`` and every call by
``mcp.call_timeout``. A call that runs past half its deadline asks the hub's ``hub_status`` (with
the same short deadline) whether it is still indexing; each answer that it is (a fresh data dir's
first embedding pass) moves the deadline to ``mcp.call_timeout`` after that answer, up to
INDEXING_ALLOWANCE_S in all. A hub that is alive but hung answers nothing, so its call ends at
``mcp.call_timeout``, named in the error. A call also ends
the moment its connection is lost (an HTTP server killed mid-answer, a stdio server that exited),
not at its deadline. A call past its deadline is cancelled and the session closed, which ends the
request on the wire too (the SDK would otherwise keep reading its response); the next call opens
a new session. Every failure reaches the caller as one line in :class:`BackendUnavailable`,
including a tool error the hub marks as a fault of its own store (``core.errors.BACKEND_FAULT``):
a search that failed is never an empty result.

When the connection is the bundled stdio hub as configured by default and ``mcp.use_daemon`` is on,
a running warm hub (``paperpilot hub start``, :mod:`core.hub.daemon`) takes its place; a daemon that
does not answer is passed over with a notice, and the stdio child is started as before.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from core.errors import BACKEND_FAULT, BackendUnavailable
from core.config import MCPConnection, MCPSettings
from core.types import RetrievedContext
from core.tools.mcp_session import HubRefused, default_token, open_session
from core.tools.batching import BATCH, SINGLE, SearchBatcher
from core.tools.harvest import seed
from core.tools.titles import TitleBook
from core.vocabulary import Vocabulary
from core.tools.child_stderr import ChildStderr

INDEXING_ALLOWANCE_S = 600  # the most one call may wait while the hub reports that it is indexing
BUSY_PHASES = frozenset({"indexing", "embedding"})  # hub_status phases in which queries wait for the index
STATUS = "hub_status"
DAEMON_CONNECT_TIMEOUT_S = 10  # a daemon that answered the ping but cannot open a session is passed over



def search_params(tools: list) -> frozenset[str]:
    """The argument names of the server's search tool (its JSON-schema properties; empty without one)."""
    tool = next((t for t in tools if t.name == SINGLE), None)
    schema = getattr(tool, "inputSchema", None) or {}
    return frozenset(schema.get("properties") or ())

class ConnectionLost(ConnectionError):
    """The session's connection went while a call was in flight."""


class CallTimedOut(TimeoutError):
    """A call passed its deadline; ``extended`` when the hub had reported indexing on the way."""

    def __init__(self, extended: bool = False) -> None:
        super().__init__("call timed out")
        self.extended = extended


class ToolError(Exception):
    """The server answered the call with ``isError=true``; the message is the server's."""


@dataclass
class ToolResult:
    """A successful tool call: its text blocks and its ``structuredContent``, if any."""

    texts: list[str]
    structured: dict | None

    @property
    def text(self) -> str:
        return "\n".join(self.texts)


@dataclass
class HubClient:
    """RAG wrapper over MCP: ``search``, ``list_collections``, ``get_document_summary``, ``list_topics``,
    ``get_topic_documents``, ``name_topics``, ``get_lineage``, ``get_citations``, ``call``."""

    settings: MCPSettings
    connection: str | None = None
    notices: list[str] = field(default_factory=list)
    reconnects: int = 0

    def __post_init__(self) -> None:
        self.name = self.connection or self.settings.connection
        self._configured = self.settings.connections[self.name]
        self._conn = self._configured
        self.daemon_port: int | None = None  # set while connected to the warm hub daemon
        self._session: Any = None
        self._tools: set[str] = set()
        self._search_params: frozenset[str] = frozenset()  # the search tool's arguments
        self._owner: asyncio.Task | None = None
        self._closing: asyncio.Event | None = None
        self._errlog: TextIO | None = None
        self._lock = asyncio.Lock()
        self._generation = 0
        self._batcher = SearchBatcher(lambda tool, args: self.call(tool, args), lambda: BATCH in self._tools)
        self._titles = TitleBook(self.get_document_summary)
        self._lost: asyncio.Event | None = None  # set when this session's connection is lost
        self._lost_reason = ""
        self._refused: str | None = None  # the server's refusal line (bad token, too large, busy)
        self._dropped: str | None = None  # why the session was closed on purpose (a call timed out)
        self._connect_error = ""  # the last failed connect's reason
        self._server_pid: int | None = None  # the stdio server's process (group) id, once started
        self._stderr: ChildStderr | None = None  # the stdio server's stderr, when it is not sent to a log

    async def __aenter__(self) -> HubClient:
        try:
            await self.connect()
        except BaseException:
            self._close_log()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
        self._close_log()

    @property
    def describe(self) -> str:
        c = self._conn
        if self.daemon_port is not None:
            return f"{self.name} (daemon :{self.daemon_port})"
        return f"{self.name} ({c.url})" if c.transport != "stdio" else f"{self.name} (stdio)"

    def _daemon(self) -> tuple[MCPConnection, int] | None:
        """The warm hub's connection, when it may stand in for this one and answers; else None."""
        if not (self.settings.use_daemon and self._configured == MCPSettings().connections.get(self.name)
                and self.name == "hub"):
            return None  # only ever in place of the default bundled stdio hub, never a user's server
        from core.hub import daemon

        state, why = daemon.find_daemon()
        if why:
            self.notices.append(f"hub daemon: removed a stale file ({why})")
        if state is None:
            return None
        if daemon.ping(state) in (None, 401):
            self.notices.append(f"hub daemon (pid {state.pid}, :{state.port}) did not answer; using the stdio hub")
            return None
        return MCPConnection(transport="streamable_http", url=state.url, headers=state.headers), state.port

    def _server_log(self) -> TextIO | None:
        """The file a stdio server's stderr goes to (``mcp.server_log``, a private file: created 0600,
        refused when it is a directory or another user's); None = this stderr."""
        if self._errlog is None and self.settings.server_log and self._conn.transport == "stdio":
            from core import paths

            path = Path(self.settings.server_log).expanduser()
            path = paths.private_file(path if path.is_absolute() else paths.home() / path, "mcp.server_log")
            self._errlog = path.open("a", encoding="utf-8")
        return self._errlog

    def _close_log(self) -> None:
        if self._errlog is not None:
            self._errlog.close()
            self._errlog = None

    async def connect(self) -> None:
        self._conn, self.daemon_port = self._configured, None
        warm = await asyncio.to_thread(self._daemon)  # a file read and a loopback ping (≤ 1.5 s)
        if warm is not None:
            self._conn, self.daemon_port = warm
            try:
                return await self._connect(min(self.settings.connect_timeout, DAEMON_CONNECT_TIMEOUT_S))
            except BackendUnavailable as exc:
                self.notices.append(f"{exc}; using the stdio hub")
            self._conn, self.daemon_port = self._configured, None
        await self._connect()

    async def _connect(self, timeout: float | None = None) -> None:
        ready: asyncio.Future = asyncio.get_running_loop().create_future()
        closing, lost = asyncio.Event(), asyncio.Event()
        errlog = self._server_log()
        if errlog is None and self._conn.transport == "stdio":  # held while it starts: see ChildStderr
            self._stderr = ChildStderr()
            errlog = self._stderr.file
        stderr = self._stderr
        limit = timeout or self.settings.connect_timeout

        def on_lost(reason: str) -> None:
            if not lost.is_set() and not closing.is_set():
                self._lost_reason = reason
                lost.set()

        def on_refused(line: str) -> None:  # a 401/413/503: the call fails with the server's line, no retry
            self._refused = line
            on_lost(line)

        token = await asyncio.to_thread(default_token, self._conn, self.settings.token.get_secret_value()
                                        if self.settings.token else None)
        self._server_pid = None

        def on_started(pid: int) -> None:
            self._server_pid = pid

        async def own() -> None:
            try:
                async with open_session(self._conn, errlog, connect_timeout=limit, on_lost=on_lost,
                                        on_refused=on_refused, token=token, on_started=on_started) as session:
                    listed = await session.list_tools()
                    if not ready.done():
                        ready.set_result((session, {t.name for t in listed.tools}, search_params(listed.tools)))
                    await closing.wait()
            except BaseException as exc:  # noqa: BLE001 - surfaced through `ready`
                if not ready.done():
                    ready.set_exception(exc)

        self._closing, self._lost, self._lost_reason, self._refused = closing, lost, "", None
        self._owner = asyncio.create_task(own(), name=f"mcp-session-{self.name}")
        try:
            self._session, self._tools, self._search_params = await asyncio.wait_for(ready, timeout=limit)
        except BaseException as exc:
            await self.close()
            said = await asyncio.to_thread(stderr.failed) if stderr is not None else ""
            me = asyncio.current_task()
            if isinstance(exc, asyncio.CancelledError) and me is not None and me.cancelling():
                raise  # this task is cancelled (the turn's deadline, the user): not a server failure
            if isinstance(exc, HubRefused):
                raise BackendUnavailable(str(exc)) from None
            if said:  # the server said why it stopped: that is the one line, not "connection closed"
                self._connect_error = said
                raise BackendUnavailable(f"MCP server {self.describe} did not start: {said}") from None
            why = f"no session within {limit:g} s (mcp.connect_timeout)" if isinstance(exc, TimeoutError) \
                else _one_line(exc)
            self._connect_error = why
            raise BackendUnavailable(f"MCP server {self.describe} unreachable: {why}") from None
        if stderr is not None:
            stderr.release()
        self._generation += 1
        self._dropped = None

    async def close(self, grace: float = 5) -> None:
        """End the session, waiting up to ``grace`` seconds for a clean goodbye (0: cancel it at once)."""
        if self._closing is not None:
            self._closing.set()
        if self._owner is not None:
            if grace <= 0:
                self._owner.cancel()
            try:
                await asyncio.wait_for(self._owner, timeout=max(grace, 1))
            except BaseException:  # noqa: BLE001 - a dead server may not close cleanly
                self._owner.cancel()
        self._owner = None
        self._session = None
        self._tools, self._search_params = set(), frozenset()
        if self._stderr is not None:  # the server has exited (or been killed): the pump ends with it
            self._stderr, stderr = None, self._stderr
            stderr.close(wait_s=0)

    async def _reconnect(self, generation: int, reason: BaseException) -> None:
        async with self._lock:
            if generation != self._generation:
                return  # another task already reconnected
            why = self._dropped or (str(reason) if isinstance(reason, ConnectionLost) else _one_line(reason))
            await self.close()
            self._connect_error = ""
            try:
                await self.connect()
            except BackendUnavailable:
                if not self._connect_error:
                    raise
                raise BackendUnavailable(f"MCP server {self.describe} unreachable: {why}; "
                                         f"reconnecting: {self._connect_error}") from None
            self.reconnects += 1
            self.notices.append(f"knowledge hub connection lost ({why}); reconnected to {self.describe}")

    async def call(self, tool: str, args: dict[str, Any], timeout: float | None = None) -> ToolResult:
        """Call a tool; reconnect once if the session broke. Raises ToolError / BackendUnavailable."""
        limit = timeout or self.settings.call_timeout
        for attempt in (0, 1):
            generation = self._generation
            try:
                return await self._call_once(tool, args, limit)
            except (ToolError, BackendUnavailable):
                raise
            except CallTimedOut as exc:  # the server hung: end the call and its session, do not wait twice
                await self._drop(generation, f"{tool} timed out")
                since = " after it last reported indexing" if exc.extended else ""
                raise BackendUnavailable(
                    f"MCP server {self.describe} did not answer {tool} within {limit:g} s{since} (mcp.call_timeout)"
                ) from None
            except Exception as exc:  # noqa: BLE001 - a transport failure: the server died
                if attempt:
                    raise BackendUnavailable(
                        f"MCP server {self.describe} unreachable: {_one_line(exc)} during {tool}"
                    ) from None
                await self._reconnect(generation, exc)
        raise AssertionError("unreachable")

    async def _drop(self, generation: int, why: str) -> None:
        """Close the session a timed-out call used (the next call reconnects). A stdio server that
        let a call pass its deadline is hung: it is killed, not given the SDK's graceful shutdown
        (seconds of waiting on a process that will not answer)."""
        async with self._lock:
            if generation == self._generation and self._session is not None:
                if self._server_pid is not None:
                    import signal

                    try:
                        os.killpg(self._server_pid, signal.SIGKILL)
                    except OSError:
                        pass
                    await self.close()
                else:  # an HTTP server that hung would not answer the goodbye either
                    await self.close(grace=0)
                self._dropped = why

    async def _call_once(self, tool: str, args: dict[str, Any], timeout: float) -> ToolResult:
        if tool not in self._tools:
            if not self._tools:
                raise ConnectionError("no session")
            raise ToolError(f"the knowledge hub has no tool {tool!r}")
        session = self._session
        probe = (lambda t: self._indexing(session, t)) if STATUS in self._tools and tool != STATUS else None
        result = await self._watched(session.call_tool(tool, args), timeout, probe)
        texts = [block.text for block in result.content if block.type == "text"]
        if result.isError:
            text = " ".join(texts).strip() or f"{tool} failed"
            if BACKEND_FAULT in text:
                raise BackendUnavailable(f"MCP server {self.describe}: {text[text.index(BACKEND_FAULT):]}")
            raise ToolError(text)
        return ToolResult(texts=texts, structured=result.structuredContent)

    async def _watched(self, call: Any, timeout: float, probe: Any = None) -> Any:
        """``call``'s result, or ConnectionLost the moment the connection goes, or CallTimedOut.

        With ``probe`` (an async ``probe(deadline) -> bool``), a call still running at half its
        deadline asks whether the hub is indexing, then again every half deadline; each yes moves the
        deadline to ``timeout`` after it, up to INDEXING_ALLOWANCE_S from the start.
        """
        loop = asyncio.get_running_loop()
        start = loop.time()
        deadline, cap = start + timeout, start + max(timeout, INDEXING_ALLOWANCE_S)
        task = asyncio.ensure_future(call)
        lost = asyncio.ensure_future(self._lost.wait()) if self._lost is not None else None
        watch = [w for w in (lost, self._owner) if w is not None]
        extended = False
        try:
            while True:
                now = loop.time()
                wake = min(deadline, now + timeout / 2) if probe is not None and now < cap else deadline
                done, _ = await asyncio.wait([task, *watch], timeout=max(0.0, wake - now),
                                             return_when=asyncio.FIRST_COMPLETED)
                if task in done:
                    return task.result()
                if done and self._refused:
                    raise BackendUnavailable(self._refused)
                if done:
                    raise ConnectionLost(f"connection lost mid-call ({self._lost_reason or 'the session ended'})")
                if loop.time() >= deadline:
                    raise CallTimedOut(extended)
                if await probe(max(0.1, min(timeout / 2, deadline - loop.time()))):
                    deadline, extended = min(cap, loop.time() + timeout), True
        finally:
            mine = [t for t in (task, lost) if t is not None]  # never the owner: close() ends it
            for t in mine:
                t.cancel()
            await asyncio.gather(*mine, return_exceptions=True)

    async def _indexing(self, session: Any, timeout: float) -> bool:
        """Whether the hub answers ``hub_status`` within ``timeout`` with a phase before ready."""
        try:
            res = await asyncio.wait_for(session.call_tool(STATUS, {}), timeout)
        except Exception:  # noqa: BLE001 - no answer (hung, gone) or an odd one: not indexing
            return False
        data = res.structuredContent if isinstance(res.structuredContent, dict) and not res.isError else {}
        data = data.get("result", data)  # FastMCP wraps a dict result as {"result": ...}
        return isinstance(data, dict) and data.get("phase") in BUSY_PHASES

    async def search(self, query: str, top_k: int = 5, collection: str | None = None, *,
                     version: int | None = None, as_of: str | None = None,
                     doc_id: str | None = None, topic: str | None = None,
                     per_doc: int | None = None) -> list[RetrievedContext]:
        """Hybrid search; ``version``/``as_of``/``doc_id``/``topic`` (the bundled hub's) scope it to an
        older version, a date, one document or one topic's documents (a ``list_topics`` id or label),
        ``per_doc`` caps the hits of any one document, and all are sent only when given (upstream
        servers lack them). Searches made concurrently with the same arguments but the query go out
        as one batch call (:mod:`core.tools.batching`)."""
        scope = {k: v for k, v in (("version", version), ("as_of", as_of), ("doc_id", doc_id), ("topic", topic),
                                   ("per_doc", per_doc)) if v is not None}
        key = tuple({"top_k": top_k, "collection": collection or self.settings.collection, **scope}.items())
        name = collection or self.settings.collection
        hits = await self._titles.fill(await self._batcher.search(key, query), name)
        self._titles.harvest.add_hits(name, hits)
        return hits

    def searches_by(self, param: str) -> bool:
        """Whether the server's search tool takes ``param`` (``doc_id``, ``topic``, …), from its input
        schema: upstream servers take only a query and a count, and are never sent more."""
        return param in self._search_params

    def harvested_vocabulary(self, collection: str | None = None) -> Vocabulary:
        """The vocabulary of the titles and text this server has returned (:mod:`core.tools.harvest`),
        for a server without ``get_vocabulary``."""
        return self._titles.harvest.vocabulary(collection or self.settings.collection)

    async def harvest(self, question: str, collection: str | None = None) -> Vocabulary:
        """Search ``question`` once, then :meth:`harvested_vocabulary` (turns harvesting on)."""
        self._titles.harvest.enabled = True
        await seed(lambda q: self.search(q, collection=collection), question)
        return self.harvested_vocabulary(collection)

    async def list_collections(self, timeout: float | None = None) -> ToolResult:
        """Collections with stats. On a fresh data dir the first call waits for the initial index
        (for as long as the hub reports that it is indexing)."""
        return await self.call("list_collections", {"include_stats": True}, timeout=timeout)

    async def get_document_summary(self, doc_id: str, collection: str | None = None) -> ToolResult:
        return await self.call(
            "get_document_summary", {"doc_id": doc_id, "collection": collection or self.settings.collection}
        )

    async def list_topics(self, collection: str | None = None) -> ToolResult:
        """The collection's topics (:mod:`core.hub.topics`); ToolError on a hub without the tool."""
        return await self.call("list_topics", {"collection": collection or self.settings.collection})

    async def get_topic_documents(self, topic: str, collection: str | None = None) -> ToolResult:
        return await self.call("get_topic_documents",
                               {"topic": topic, "collection": collection or self.settings.collection})

    async def get_lineage(self, topic: str | None = None, doc_ids: list[str] | None = None,
                          collection: str | None = None) -> ToolResult:
        """The papers on ``topic`` (or ``doc_ids``) ordered by year with the cite edges among them
        (:mod:`core.hub.lineage`); ToolError on a hub without the tool."""
        args: dict = {"collection": collection or self.settings.collection}
        args |= {"topic": topic} if topic else {"doc_ids": list(doc_ids or [])}
        return await self.call("get_lineage", args)

    async def get_citations(self, doc_id: str, collection: str | None = None) -> ToolResult:
        """What one document cites in the library and what cites it; ToolError on a hub without the tool."""
        return await self.call("get_citations", {"doc_id": doc_id, "collection": collection or self.settings.collection})

    async def name_topics(self, names: dict[str, str], collection: str | None = None) -> ToolResult:
        """Store human names for topics (id -> name); the result is the named ``list_topics``."""
        return await self.call("name_topics", {"names": names, "collection": collection or self.settings.collection})

    async def remove_document(self, doc_id: str, collection: str | None = None) -> ToolResult:
        """Delete one document (chunks, vectors, keyword entries) from the collection; ToolError on a
        hub without the tool or for an unknown id."""
        return await self.call("remove_document", {"doc_id": doc_id, "collection": collection or self.settings.collection})


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        return _one_line(exc.exceptions[0])
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__
