"""Small helpers for the app's background work: store calls off the event loop, one-line errors,
session ids, the replay player's pause/speed control, and keeping MCP stdio servers off the screen.

Nothing here imports ``core`` at module level (first paint stays light).
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any
from collections.abc import Callable


def one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def new_session_id() -> str:
    """Same shape as ``core.agent.new_id`` without importing it."""
    return uuid.uuid4().hex[:12]


async def call(fn: Callable, *args: Any) -> Any:
    """Run a (sync, SQLite) store method off the event loop; await it if it is async."""
    if asyncio.iscoroutinefunction(fn):
        return await fn(*args)
    return await asyncio.to_thread(fn, *args)


def quiet_stdio_servers(settings: Any) -> Any:
    """Settings whose MCP stdio servers write their stderr to a log file in the data directory,
    where it cannot scribble over the full-screen UI (``mcp.server_log``, unless one is set)."""
    if settings.mcp.server_log:
        return settings
    mcp = settings.mcp.model_copy(update={"server_log": str(settings.paths.resolve("hub-stderr.log"))})
    return settings.model_copy(update={"mcp": mcp})


class ReplayControl:
    """Pause and speed for a running replay (changed by the UI, read by the player)."""

    def __init__(self, speed: float = 1.0) -> None:
        self.speed = speed
        self.running = asyncio.Event()
        self.running.set()
        self.trace_id, self.position, self.total = "", 0, 0  # last reported progress

    @property
    def paused(self) -> bool:
        return not self.running.is_set()

    def toggle(self) -> None:
        if self.paused:
            self.running.set()
        else:
            self.running.clear()

    async def wait(self, gap: float) -> None:
        await self.running.wait()
        if gap > 0 and self.speed > 0:
            await asyncio.sleep(min(gap / self.speed, 2.0))
        await self.running.wait()
