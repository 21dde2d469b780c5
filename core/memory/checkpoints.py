"""The LangGraph checkpoint database (short-term memory): read a thread's messages, delete a thread.

The agent writes checkpoints through langgraph-checkpoint-sqlite's ``AsyncSqliteSaver`` with
thread_id = session id; the messages channel accumulates ``HumanMessage``/``AIMessage`` pairs.
LangGraph is imported inside the functions: these helpers sit behind CLI commands whose ``--help``
must stay fast.
"""

from __future__ import annotations

import sqlite3
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from collections.abc import AsyncIterator


@asynccontextmanager
async def open_checkpointer(path: Path) -> AsyncIterator[Any]:
    """An ``AsyncSqliteSaver`` on ``path`` in WAL mode with a busy timeout (two processes may share it)."""
    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    from core.errors import StoreUnreadable
    from core.paths import private_file

    private_file(path)
    async with aiosqlite.connect(str(path), timeout=15) as conn:
        try:
            await conn.execute("PRAGMA busy_timeout = 15000")
            await conn.execute("PRAGMA journal_mode = WAL")
            await conn.execute("PRAGMA synchronous = NORMAL")  # WAL: a killed process loses nothing committed
            saver = AsyncSqliteSaver(conn, serde=serializer())
            await saver.setup()
        except sqlite3.DatabaseError as exc:
            raise StoreUnreadable.of(path, exc) from None
        yield saver


# Checkpoints written before the value types moved to core.types name them core.state.<Name>;
# core.state still exports those names. ReasoningStep no longer exists: an old checkpoint's
# reasoning_trace decodes to plain dicts in a channel the graph no longer has, and is ignored.
LEGACY_TYPES = [("core.state", name) for name in (
    "Intent", "RetrievedContext", "SufficiencyJudgement", "CriticVerdict", "Source", "ReasoningStep")]


def serializer() -> Any:
    """LangGraph's serializer with our state types allowlisted (no unregistered-type warnings)."""
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    from core.state import checkpoint_types

    return JsonPlusSerializer(allowed_msgpack_modules=[*checkpoint_types(), *LEGACY_TYPES])


def _config(thread_id: str) -> dict:
    return {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}


async def read_messages(path: Path, thread_id: str) -> list[Any]:
    """The messages of the thread's latest checkpoint, oldest first; [] when there is none."""
    if not Path(path).exists():
        return []
    async with open_checkpointer(path) as saver:
        tup = await saver.aget_tuple(_config(thread_id))
    if tup is None:
        return []
    return list(tup.checkpoint.get("channel_values", {}).get("messages", []) or [])


async def thread_exists(path: Path, thread_id: str) -> bool:
    if not Path(path).exists():
        return False
    async with open_checkpointer(path) as saver:
        return await saver.aget_tuple(_config(thread_id)) is not None


async def adelete_thread(path: Path, thread_id: str) -> None:
    """Delete every checkpoint and pending write of the thread (async, via ``adelete_thread``)."""
    if not Path(path).exists():
        return
    async with open_checkpointer(path) as saver:
        await saver.adelete_thread(thread_id)


def delete_thread(path: Path, thread_id: str) -> None:
    """Same as :func:`adelete_thread`, for sync callers (``SqliteSaver.delete_thread``)."""
    if not Path(path).exists():
        return
    from langgraph.checkpoint.sqlite import SqliteSaver

    conn = sqlite3.connect(str(path), timeout=15, check_same_thread=False)
    try:
        conn.execute("PRAGMA busy_timeout = 15000")
        saver = SqliteSaver(conn)
        saver.setup()
        saver.delete_thread(thread_id)
        conn.commit()
    finally:
        conn.close()
