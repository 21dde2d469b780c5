"""One persistent MCP session to the knowledge hub, with the RAG wrapper on top.

The session is opened once per run (``client.session(...)`` + ``load_mcp_tools``) and owned by a
dedicated task, so tool calls may come from any task (the comparative strategy calls in
parallel). If the server dies, the next call reconnects once and reports it through ``notices``.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass, field
from typing import Any

from core.errors import BackendUnavailable
from core.config import MCPConnection, MCPSettings
from core.types import RetrievedContext
from core.tools.parse import parse_search_result


FIRST_QUERY_TIMEOUT_S = 600


class ToolError(Exception):
    """The server answered the call with ``isError=true``; the message is the server's."""


@dataclass
class ToolResult:
    texts: list[str]
    structured: dict | None
    is_error: bool = False

    @property
    def text(self) -> str:
        return "\n".join(self.texts)


def connection_dict(conn: MCPConnection) -> dict[str, Any]:
    """The langchain-mcp-adapters connection for one configured server (argument list, no shell)."""
    if conn.transport == "stdio":
        env = {**os.environ, **conn.env}
        return {"transport": "stdio", "command": conn.resolved_command(), "args": list(conn.args),
                "env": env, "cwd": conn.cwd}
    transport = "streamable_http" if conn.transport == "streamable_http" else "sse"
    return {"transport": transport, "url": conn.url, "headers": dict(conn.headers) or None}


@dataclass
class HubClient:
    """RAG wrapper over MCP: ``search``, ``list_collections``, ``get_document_summary``, ``call``."""

    settings: MCPSettings
    connection: str | None = None
    notices: list[str] = field(default_factory=list)
    reconnects: int = 0

    def __post_init__(self) -> None:
        self.name = self.connection or self.settings.connection
        self._conn = self.settings.connections[self.name]
        self._tools: dict[str, Any] = {}
        self._owner: asyncio.Task | None = None
        self._closing: asyncio.Event | None = None
        self._lock = asyncio.Lock()
        self._generation = 0
        self._searched = False

    async def __aenter__(self) -> "HubClient":
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def describe(self) -> str:
        c = self._conn
        return f"{self.name} ({c.url})" if c.transport != "stdio" else f"{self.name} (stdio)"

    async def connect(self) -> None:
        from langchain_mcp_adapters.client import MultiServerMCPClient
        from langchain_mcp_adapters.tools import load_mcp_tools

        client = MultiServerMCPClient({self.name: connection_dict(self._conn)})
        ready: asyncio.Future = asyncio.get_running_loop().create_future()
        closing = asyncio.Event()

        async def own() -> None:
            try:
                async with client.session(self.name) as session:
                    _compile_output_validation(session)
                    tools = await load_mcp_tools(session, server_name=self.name)
                    if not ready.done():
                        ready.set_result({t.name: t for t in tools})
                    await closing.wait()
            except BaseException as exc:  # noqa: BLE001 - surfaced through `ready`
                if not ready.done():
                    ready.set_exception(exc)

        self._closing = closing
        self._owner = asyncio.create_task(own(), name=f"mcp-session-{self.name}")
        try:
            self._tools = await asyncio.wait_for(ready, timeout=self.settings.call_timeout)
        except BaseException as exc:
            await self.close()
            raise BackendUnavailable(f"MCP server {self.describe} unreachable: {_one_line(exc)}") from None
        self._generation += 1

    async def close(self) -> None:
        if self._closing is not None:
            self._closing.set()
        if self._owner is not None:
            try:
                await asyncio.wait_for(self._owner, timeout=5)
            except BaseException:  # noqa: BLE001 - a dead server may not close cleanly
                self._owner.cancel()
        self._owner = None
        self._tools = {}

    async def _reconnect(self, generation: int, reason: BaseException) -> None:
        async with self._lock:
            if generation != self._generation:
                return  # another task already reconnected
            await self.close()
            await self.connect()
            self.reconnects += 1
            self.notices.append(
                f"knowledge hub connection lost ({_one_line(reason)}); reconnected to {self.describe}"
            )

    async def call(self, tool: str, args: dict[str, Any], timeout: float | None = None) -> ToolResult:
        """Call a tool; reconnect once if the session broke. Raises ToolError / BackendUnavailable."""
        for attempt in (0, 1):
            generation = self._generation
            try:
                return await self._call_once(tool, args, timeout or self.settings.call_timeout)
            except ToolError:
                raise
            except BackendUnavailable:
                raise
            except Exception as exc:  # transport failure: the server process died or hung
                if attempt:
                    raise BackendUnavailable(
                        f"MCP server {self.describe} failed during {tool}: {_one_line(exc)}"
                    ) from None
                await self._reconnect(generation, exc)
        raise AssertionError("unreachable")

    async def _call_once(self, tool: str, args: dict[str, Any], timeout: float) -> ToolResult:
        if tool not in self._tools:
            if not self._tools:
                raise ConnectionError("no session")
            raise ToolError(f"the knowledge hub has no tool {tool!r}")
        call = {"type": "tool_call", "name": tool, "args": args, "id": f"pp-{time.monotonic_ns()}"}
        msg = await asyncio.wait_for(self._tools[tool].ainvoke(call), timeout=timeout)
        texts = _texts(msg.content)
        structured = getattr(msg, "artifact", None)
        structured = structured.get("structured_content") if isinstance(structured, dict) else None
        if getattr(msg, "status", "success") == "error":
            raise ToolError(" ".join(texts).strip() or f"{tool} failed")
        return ToolResult(texts=texts, structured=structured)

    async def search(self, query: str, top_k: int = 5, collection: str | None = None) -> list[RetrievedContext]:
        # The first query of a session may wait for a fresh data dir's initial embedding pass.
        timeout = None if self._searched else max(self.settings.call_timeout, FIRST_QUERY_TIMEOUT_S)
        res = await self.call(
            "query_knowledge_hub",
            {"query": query, "top_k": top_k, "collection": collection or self.settings.collection},
            timeout=timeout,
        )
        self._searched = True
        return parse_search_result(res.texts, res.structured, query=query)

    async def list_collections(self, timeout: float | None = None) -> ToolResult:
        """Collections with stats. On a fresh data dir the first call waits for the initial index."""
        return await self.call("list_collections", {"include_stats": True}, timeout=timeout)

    async def get_document_summary(self, doc_id: str, collection: str | None = None) -> ToolResult:
        return await self.call(
            "get_document_summary", {"doc_id": doc_id, "collection": collection or self.settings.collection}
        )

    def has_tool(self, name: str) -> bool:
        return name in self._tools


def _compile_output_validation(session: Any) -> None:
    """Validate structured tool results with one compiled validator per tool.

    The MCP SDK's ``ClientSession`` calls ``jsonschema.validate`` on every result, which re-checks
    the output schema against the metaschema each time (~8 ms a call, the bulk of a hub query's
    round trip). Same validation, compiled once per tool, on this session only.
    """
    import jsonschema
    from referencing import Registry

    validators: dict[str, Any] = {}

    async def validate(name: str, result: Any) -> None:
        if name not in session._tool_output_schemas:
            await session.list_tools()
        schema = session._tool_output_schemas.get(name)
        if schema is None:
            return
        if result.structuredContent is None:
            raise RuntimeError(f"Tool {name} has an output schema but did not return structured content")
        if name not in validators:
            cls = jsonschema.validators.validator_for(schema)
            cls.check_schema(schema)
            validators[name] = cls(schema, registry=Registry())
        error = jsonschema.exceptions.best_match(validators[name].iter_errors(result.structuredContent))
        if error is not None:
            raise RuntimeError(f"Invalid structured content returned by tool {name}: {error.message}")

    session._validate_tool_result = validate


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    out = []
    for block in content or []:
        if isinstance(block, dict) and block.get("type") == "text":
            out.append(block.get("text", ""))
        elif isinstance(block, str):
            out.append(block)
    return out


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        return _one_line(exc.exceptions[0])
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__
