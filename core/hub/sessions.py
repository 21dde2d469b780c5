"""A per-client cap on the HTTP hub's open MCP sessions.

The SDK caps sessions globally (``MAX_SESSIONS`` in :mod:`core.hub.server`): one client sending
bare ``initialize`` calls could hold every slot and lock everyone else out with 503 until its
sessions go idle. :class:`SessionQuota` (ASGI middleware in front of the SDK's app) lets one client
hold at most ``per_client`` sessions; past that, its next ``initialize`` gets a one-line 503 while
other clients still get in.

A client is its address; on this machine, where every local user is 127.0.0.1, it is the address
and the uid owning the connecting socket (:func:`core.hub.peers.peer_uid`). Sessions are followed
from the outside, through the protocol: one counts from the response that hands out its
``mcp-session-id`` until a DELETE, a 404 for it, or ``idle_s`` with no request of it in flight
(the SDK's own idle timeout, which this follows and never undercuts: it restarts its clock after
the SDK's does).
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

from core.hub import peers


@dataclass
class _Session:
    client: tuple
    active: int
    last: float


class SessionQuota:
    """ASGI middleware: at most ``per_client`` open sessions per client; another gets a one-line 503."""

    def __init__(self, app: Any, per_client: int, idle_s: float) -> None:
        self.app, self.per_client, self.idle_s = app, per_client, idle_s
        self.sessions: dict[str, _Session] = {}
        self.opening: Counter[tuple] = Counter()  # initialize requests in flight, per client

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        sid = dict(scope.get("headers") or []).get(b"mcp-session-id")
        if sid is not None:
            return await self._in_session(sid.decode("latin-1"), scope, receive, send)
        if scope.get("method") != "POST":
            return await self.app(scope, receive, send)
        client = client_of(scope)
        self._expire()
        held = sum(s.client == client for s in self.sessions.values()) + self.opening[client]
        if held >= self.per_client:
            return await _busy(send, f"this client already holds {held} hub sessions (the most one client may "
                                     f"hold); close one, or unused ones end after {self.idle_s:g} s idle")
        opened: list[str] = []

        async def watch(message: dict) -> None:
            if message["type"] == "http.response.start" and message["status"] < 400:
                opened.extend(v.decode("latin-1") for k, v in message.get("headers", [])
                              if k.lower() == b"mcp-session-id")
            await send(message)

        self.opening[client] += 1
        try:
            await self.app(scope, receive, watch)
        finally:
            self.opening[client] -= 1
            if not self.opening[client]:
                del self.opening[client]
            for new in opened:
                self.sessions[new] = _Session(client, 0, time.monotonic())

    async def _in_session(self, sid: str, scope: dict, receive: Any, send: Any) -> None:
        tracked = self.sessions.get(sid)
        if tracked is None:
            return await self.app(scope, receive, send)
        status: list[int] = []

        async def watch(message: dict) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])
            await send(message)

        tracked.active += 1
        try:
            await self.app(scope, receive, watch)
        finally:
            tracked.active -= 1
            tracked.last = time.monotonic()
            if scope.get("method") == "DELETE" or status[:1] == [404]:
                self.sessions.pop(sid, None)

    def _expire(self) -> None:
        now = time.monotonic()
        for sid in [sid for sid, s in self.sessions.items() if not s.active and now - s.last > self.idle_s]:
            del self.sessions[sid]


def client_of(scope: dict) -> tuple:
    """Who sent the request: its address, and on this machine the uid owning its socket."""
    peer, server = scope.get("client"), scope.get("server")
    if not peer:
        return ("unknown",)
    host = str(peer[0])
    if server and peers.resolve_loopback(host):
        return (host, peers.peer_uid((host, int(peer[1])), (str(server[0]), int(server[1]))))
    return (host,)


async def _busy(send: Any, why: str) -> None:
    body = json.dumps({"error": "busy", "error_description": why}).encode()
    await send({"type": "http.response.start", "status": 503,
                "headers": [(b"content-type", b"application/json"), (b"retry-after", b"1"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
