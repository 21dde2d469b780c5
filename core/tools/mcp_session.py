"""Open one initialized ``mcp.ClientSession`` for a configured connection.

stdio servers run as argument lists (never through a shell) with their stderr sent to ``errlog``;
streamable HTTP and SSE servers get the configured headers. The one deviation from the SDK's
defaults is :func:`compile_output_validation`.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any, TextIO

from core.config import MCPConnection

# MCP SDK versions whose ClientSession._validate_tool_result was read and matched (lower, upper).
VALIDATION_CHECKED = ((1, 20), (2, 0))


@asynccontextmanager
async def open_session(conn: MCPConnection, errlog: TextIO | None = None) -> AsyncIterator[Any]:
    """An initialized ``ClientSession`` to ``conn``, with the tools listed once."""
    from mcp import ClientSession

    async with AsyncExitStack() as stack:
        if conn.transport == "stdio":
            from mcp.client.stdio import StdioServerParameters, stdio_client

            params = StdioServerParameters(command=conn.resolved_command(), args=list(conn.args),
                                           env=child_env(conn.env), cwd=conn.cwd)
            read, write = await stack.enter_async_context(stdio_client(params, errlog=errlog or sys.stderr))
        elif conn.transport == "streamable_http":
            import httpx
            from mcp.client.streamable_http import streamable_http_client

            http = await stack.enter_async_context(
                httpx.AsyncClient(headers=dict(conn.headers), timeout=httpx.Timeout(30, read=300)))
            read, write, _ = await stack.enter_async_context(streamable_http_client(conn.url, http_client=http))
        else:
            from mcp.client.sse import sse_client

            read, write = await stack.enter_async_context(sse_client(conn.url, headers=dict(conn.headers) or None))
        session = await stack.enter_async_context(ClientSession(read, write))
        await session.initialize()
        compile_output_validation(session)
        yield session


_SECRET = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.I)


def child_env(extra: dict[str, str]) -> dict[str, str]:
    """The environment of a stdio server: this process's, without anything shaped like a secret
    (``OPENAI_API_KEY``, ``*_TOKEN``, ...), plus what the connection sets explicitly (``env``)."""
    return {k: v for k, v in os.environ.items() if not _SECRET.search(k)} | dict(extra)


def _mcp_version() -> tuple[int, ...]:
    from importlib.metadata import version

    return tuple(int(n) for n in re.findall(r"\d+", version("mcp"))[:2])


def compile_output_validation(session: Any) -> bool:
    """Validate structured tool results with one compiled validator per tool; False if not applied.

    The SDK's ``ClientSession`` calls ``jsonschema.validate`` on every result, which re-checks the
    output schema against the metaschema each time (~8 ms a call, the bulk of a hub query's round
    trip). This replaces that private method on this session only, with the same checks and the
    same errors, and only for SDK versions in :data:`VALIDATION_CHECKED`; any other version keeps
    the SDK's own validation.
    """
    low, high = VALIDATION_CHECKED
    if not (low <= _mcp_version() < high) or not hasattr(session, "_tool_output_schemas"):
        return False
    import jsonschema
    from referencing import Registry

    validators: dict[str, Any] = {}
    schemas: dict[str, Any] = session._tool_output_schemas

    async def validate(name: str, result: Any) -> None:
        if name not in schemas:
            await session.list_tools()
        schema = schemas.get(name)
        if schema is None:
            return
        if result.structuredContent is None:
            raise RuntimeError(f"Tool {name} has an output schema but did not return structured content")
        if name not in validators:
            cls = jsonschema.validators.validator_for(schema)
            try:
                cls.check_schema(schema)
            except jsonschema.SchemaError as exc:
                raise RuntimeError(f"Invalid schema for tool {name}: {exc}") from exc
            validators[name] = cls(schema, registry=Registry())
        error = jsonschema.exceptions.best_match(validators[name].iter_errors(result.structuredContent))
        if error is not None:
            raise RuntimeError(f"Invalid structured content returned by tool {name}: {error.message}")

    session._validate_tool_result = validate
    return True
