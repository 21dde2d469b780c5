"""Open one initialized ``mcp.ClientSession`` for a configured connection.

stdio servers run as argument lists (never through a shell) with their stderr sent to ``errlog``;
streamable HTTP and SSE servers get the configured headers (plus ``Authorization: Bearer`` with
``mcp.token`` / ``PAPERPILOT_HUB_TOKEN`` when they set none), a connect timeout, and a watch on the
wire: the SDK's HTTP transport swallows a connection that drops mid-response (the call then waits
for an answer that never comes), so :class:`WatchedTransport` reports it through ``on_lost`` and
the caller (:class:`core.tools.hub_client.HubClient`) fails the call at once. A server's refusal
(401 token, 413 too large, 503 busy) becomes :class:`HubRefused`, one line naming the fix. The SDK's own log
records (tracebacks included) never reach the terminal. The other deviation from the SDK's
defaults is :func:`compile_output_validation`.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any, TextIO

import httpx

from core.config import MCPConnection

# MCP SDK versions whose ClientSession._validate_tool_result was read and matched (lower, upper).
VALIDATION_CHECKED = ((1, 20), (2, 0))


# No handler here means logging's last resort prints the SDK's warnings, tracebacks included, to
# stderr (into the app's screen); a NullHandler stops that and still lets a configured root log them.
for _name in ("mcp", "httpx", "httpcore"):
    logging.getLogger(_name).addHandler(logging.NullHandler())

HTTP_READ_TIMEOUT_S = 300  # an idle SSE stream; calls have their own deadline (mcp.call_timeout)


class HubRefused(ConnectionError):
    """The server refused a request (bad or missing token, too large, too busy); ``str()`` is one line."""


REFUSALS = {401, 403, 413, 429, 503}


def http_headers(conn: MCPConnection, token: str | None = None) -> dict[str, str]:
    """``conn``'s headers, with ``Authorization: Bearer token`` unless it sets its own."""
    headers = dict(conn.headers)
    if token and not any(k.lower() == "authorization" for k in headers):
        headers["Authorization"] = f"Bearer {token}"
    return headers


def default_token(conn: MCPConnection, configured: str | None) -> str | None:
    """The bearer token for ``conn``: the configured one, else, for an HTTP hub this user runs on
    this machine, this data dir's ``hub-token`` (:func:`core.hub.auth.own_token`)."""
    if configured or conn.transport == "stdio" or not conn.url \
            or any(k.lower() == "authorization" for k in conn.headers):
        return configured
    from core.hub.auth import own_token

    return own_token(conn.url)


def refusal_line(url: str, status: int, body: bytes, sent_token: bool) -> str:
    """One line for a refusal: what the server said and what to set."""
    if status == 401:
        what = "refused the token" if sent_token else "needs a token"
        return (f"the hub at {url} {what} (HTTP 401); set mcp.token or PAPERPILOT_HUB_TOKEN to what "
                "`paperpilot hub token` prints on the hub's machine")
    said = ""
    try:
        data = json.loads(body)
        if isinstance(data, dict):
            err = data.get("error")
            said = str(data.get("error_description") or (err.get("message") if isinstance(err, dict) else err) or "")
    except ValueError:
        said = body.decode("utf-8", "replace")
    said = " ".join(said.split())[:200] or "no reason given"
    return f"the hub at {url} refused the request (HTTP {status}): {said}"


@asynccontextmanager
async def open_session(conn: MCPConnection, errlog: TextIO | None = None, *, connect_timeout: float = 30.0,
                       on_lost: Callable[[str], None] | None = None, on_refused: Callable[[str], None] | None = None,
                       token: str | None = None, on_started: Callable[[int], None] | None = None) -> AsyncIterator[Any]:
    """An initialized ``ClientSession`` to ``conn``, with the tools listed once.

    ``connect_timeout`` bounds an HTTP connection attempt; ``on_lost(reason)`` is called when an
    HTTP connection fails or drops mid-response (the server died), ``on_refused(line)`` when the
    server refuses a request: see :class:`WatchedTransport`. ``token`` is sent to an HTTP server that
    has no Authorization header configured. A refusal while opening raises :class:`HubRefused`.
    ``on_started(pid)`` gets a stdio server's process id (it leads its own process group), so a
    server found hung can be killed at once rather than after the SDK's graceful shutdown.
    """
    watched = WatchedTransport(on_lost, url=conn.url or "", on_refused=on_refused) \
        if conn.transport == "streamable_http" else None
    try:
        async with _open(conn, errlog, connect_timeout, watched, token, on_started) as session:
            yield session
    except Exception:
        if watched is None or watched.refused is None:
            raise
        raise HubRefused(watched.refused) from None


@asynccontextmanager
async def _open(conn: MCPConnection, errlog: TextIO | None, connect_timeout: float,
                watched: WatchedTransport | None, token: str | None,
                on_started: Callable[[int], None] | None = None) -> AsyncIterator[Any]:
    from mcp import ClientSession

    async with AsyncExitStack() as stack:
        if conn.transport == "stdio":
            from mcp.client.stdio import StdioServerParameters, stdio_client

            params = StdioServerParameters(command=conn.resolved_command(), args=list(conn.args),
                                           env=child_env(conn.env), cwd=conn.cwd)
            before = children()
            read, write = await stack.enter_async_context(stdio_client(params, errlog=errlog or sys.stderr))
            started = [pid for pid in children() - before if _leads_group(pid)]
            if on_started is not None and len(started) == 1:
                on_started(started[0])
        elif conn.transport == "streamable_http":
            from mcp.client.streamable_http import streamable_http_client

            timeout = httpx.Timeout(connect_timeout, read=HTTP_READ_TIMEOUT_S)
            http = await stack.enter_async_context(httpx.AsyncClient(
                headers=http_headers(conn, token), timeout=timeout, transport=watched))
            read, write, _ = await stack.enter_async_context(streamable_http_client(conn.url, http_client=http))
        else:
            from mcp.client.sse import sse_client

            read, write = await stack.enter_async_context(
                sse_client(conn.url, headers=http_headers(conn, token) or None))
        session = await stack.enter_async_context(ClientSession(read, write))
        await session.initialize()
        compile_output_validation(session)
        yield session


class WatchedTransport(httpx.AsyncBaseTransport):
    """An ``httpx`` transport that reports a failed, dropped or refused request to ``on_lost``.

    A connect error, or a response body that breaks off (the server was killed mid-answer), calls
    ``on_lost("ReadError: ...")`` and is then raised as before; the SDK may swallow it, the caller
    does not have to wait for its deadline. A clean end of a response is not a loss. A refusal
    (:data:`REFUSALS`) sets ``refused`` to its :func:`refusal_line` and calls ``on_refused`` with it.
    """

    def __init__(self, on_lost: Callable[[str], None] | None = None, url: str = "",
                 on_refused: Callable[[str], None] | None = None) -> None:
        self._inner = httpx.AsyncHTTPTransport()
        self._on_lost, self._on_refused = on_lost, on_refused
        self.url = url
        self.refused: str | None = None

    def _lost(self, exc: BaseException) -> None:
        if self._on_lost is not None:
            text = str(exc).strip().splitlines()
            self._on_lost(f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        try:
            response = await self._inner.handle_async_request(request)
        except httpx.TransportError as exc:
            self._lost(exc)
            raise
        if response.status_code in REFUSALS:
            body = b""
            async for chunk in response.aiter_raw():
                body += chunk
                if len(body) > 4096:
                    break
            await response.aclose()
            self.refused = refusal_line(self.url or str(request.url), response.status_code, body[:4096],
                                        "authorization" in request.headers)
            if self._on_refused is not None:
                self._on_refused(self.refused)
            return httpx.Response(response.status_code, headers=response.headers, content=body,
                                  extensions=response.extensions)
        response.stream = _WatchedStream(response.stream, self._lost)
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


class _WatchedStream(httpx.AsyncByteStream):
    """A response body that reports a transport error before re-raising it."""

    def __init__(self, inner: Any, lost: Callable[[BaseException], None]) -> None:
        self._inner, self._lost = inner, lost

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._inner:
                yield chunk
        except httpx.TransportError as exc:
            self._lost(exc)
            raise

    async def aclose(self) -> None:
        await self._inner.aclose()


def children() -> set[int]:
    """This process's direct children, from ``/proc`` (an empty set where there is none)."""
    me, out = os.getpid(), set()
    try:
        entries = os.listdir("/proc")
    except OSError:
        return out
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
            if int(stat[stat.rindex(b")") + 2:].split()[1]) == me:
                out.add(int(entry))
        except (OSError, ValueError, IndexError):
            continue
    return out


def _leads_group(pid: int) -> bool:
    try:
        return os.getpgid(pid) == pid
    except OSError:
        return False


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
    output schema against the metaschema each time. Even a compiled ``jsonschema`` validator walks a
    20-hit search result in ~40 ms of pure Python, holding the GIL: most of a hub query's round
    trip, and what kept parallel queries on one session from overlapping. So each tool's schema is
    compiled to code with fastjsonschema (~1 ms a result); only a result it rejects, or a schema it
    cannot compile, goes through ``jsonschema`` for the SDK's exact error. This replaces that private
    method on this session only, and only for SDK versions in :data:`VALIDATION_CHECKED`; any other
    version keeps the SDK's own validation.
    """
    low, high = VALIDATION_CHECKED
    if not (low <= _mcp_version() < high) or not hasattr(session, "_tool_output_schemas"):
        return False
    import fastjsonschema
    import jsonschema
    from referencing import Registry

    validators: dict[str, Any] = {}
    fast: dict[str, Any] = {}  # tool -> compiled fastjsonschema check, or None where it cannot compile
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
            fast[name] = _fast_check(schema)
        if fast[name] is not None:
            try:
                fast[name](result.structuredContent)
                return
            except fastjsonschema.JsonSchemaException:
                pass  # jsonschema below words the error exactly as the SDK does
        error = jsonschema.exceptions.best_match(validators[name].iter_errors(result.structuredContent))
        if error is not None:
            raise RuntimeError(f"Invalid structured content returned by tool {name}: {error.message}")

    session._validate_tool_result = validate
    return True


def _fast_check(schema: dict) -> Any:
    """``schema`` compiled by fastjsonschema, or None when it uses something fastjsonschema lacks or
    refers to a remote schema (never fetched: the SDK's own validation does not fetch either)."""
    import fastjsonschema

    def no_fetch(uri: str) -> dict:
        raise ValueError(f"remote $ref {uri} is not fetched")

    try:
        return fastjsonschema.compile(schema, handlers={"http": no_fetch, "https": no_fetch})
    except Exception:  # noqa: BLE001 - any compile failure: jsonschema validates this tool instead
        return None
