"""The LangGraph checkpoint database (short-term memory): read a thread's messages, prune, delete.

The agent writes checkpoints through langgraph-checkpoint-sqlite's ``AsyncSqliteSaver`` with
thread_id = session id; the messages channel accumulates ``HumanMessage``/``AIMessage`` pairs.
Two additions to the stock saver:

* secrets never reach the file: the serializer scrubs every string of the state it writes
  (:class:`core.redact.Redactor`: the configured keys and key-shaped strings);
* the database grows linearly: every checkpoint holds the whole conversation, so keeping all of
  them grew quadratically with the turns; :meth:`PruningSaver.aprune` keeps only a thread's latest
  checkpoint (nothing reads older ones: no time travel), and the agent calls it after each turn.

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
async def open_checkpointer(path: Path, secrets: list[str] | None = None) -> AsyncIterator[Any]:
    """A :func:`saver <saver_class>` on ``path`` in WAL mode with a busy timeout (two processes may
    share it); what it writes is scrubbed of ``secrets`` and of key-shaped strings.

    A lock another process holds is waited for (the busy timeout), and opening is tried again while
    the wait lasts when SQLite answers "locked" without waiting (it does so for some WAL states); a
    lock held past the wait is :class:`~core.errors.StoreBusy`, never "not a readable database"."""
    import asyncio

    import aiosqlite

    from core.errors import StoreUnreadable, lock_waits, locked
    from core.memory import db
    from core.paths import private_file

    private_file(path)
    waits = lock_waits(db.BUSY_TIMEOUT_MS / 1000)
    while True:
        conn = await aiosqlite.connect(str(path), timeout=db.BUSY_TIMEOUT_MS / 1000)
        try:
            await conn.execute(f"PRAGMA busy_timeout = {db.BUSY_TIMEOUT_MS}")
            await conn.execute("PRAGMA journal_mode = WAL")
            await conn.execute("PRAGMA synchronous = NORMAL")  # WAL: a killed process loses nothing committed
            saver = saver_class()(conn, serde=serializer(secrets))
            await saver.setup()
            break
        except sqlite3.DatabaseError as exc:
            await conn.close()
            if locked(exc) and (pause := next(waits, None)) is not None:
                await asyncio.sleep(pause)
                continue
            raise StoreUnreadable.of(path, exc) from None
        except BaseException:
            await conn.close()
            raise
    try:
        yield saver
    finally:
        await conn.close()


# Checkpoints written before the value types moved to core.types name them core.state.<Name>;
# core.state still exports those names. ReasoningStep no longer exists: an old checkpoint's
# reasoning_trace decodes to plain dicts in a channel the graph no longer has, and is ignored.
LEGACY_TYPES = [("core.state", name) for name in (
    "Intent", "RetrievedContext", "SufficiencyJudgement", "CriticVerdict", "Source", "ReasoningStep")]


def serializer(secrets: list[str] | None = None) -> Any:
    """LangGraph's serializer with our state types allowlisted (no unregistered-type warnings),
    scrubbing secrets from every state value it writes (reading is unchanged)."""
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    from core.redact import Redactor
    from core.state import checkpoint_types

    class RedactingSerializer(JsonPlusSerializer):
        def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
            return super().dumps_typed(_scrub(redactor, obj))

    redactor = Redactor(secrets)
    return RedactingSerializer(allowed_msgpack_modules=[*checkpoint_types(), *LEGACY_TYPES])


def _scrub(redactor: Any, obj: Any) -> Any:
    """A checkpoint with its channel values scrubbed (ids and versions untouched), or a written value."""
    if isinstance(obj, dict) and "channel_values" in obj and "id" in obj:
        return {**obj, "channel_values": redactor.value(obj["channel_values"])}
    return redactor.value(obj)


_SAVER: Any = None


def saver_class() -> Any:
    """``AsyncSqliteSaver`` with ``aprune`` (the stock sqlite saver leaves it unimplemented)."""
    global _SAVER
    if _SAVER is None:
        from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

        class PruningSaver(AsyncSqliteSaver):
            async def aprune(self, thread_ids: Any, *, strategy: str = "keep_latest") -> None:
                """Keep each thread's latest checkpoint per namespace (and its writes), or delete all.

                Safe here: the graph has no ``DeltaChannel`` (messages accumulate with
                ``add_messages``, whose full value every checkpoint holds)."""
                if strategy == "delete":
                    for tid in thread_ids:
                        await self.adelete_thread(tid)
                    return
                if strategy != "keep_latest":
                    raise ValueError(f"unknown prune strategy {strategy!r}")
                await self.setup()
                async with self.lock:
                    for tid in thread_ids:
                        await self.conn.execute(_PRUNE_CHECKPOINTS, (str(tid),))
                        await self.conn.execute(_PRUNE_WRITES, (str(tid),))
                    await self.conn.commit()

        _SAVER = PruningSaver
    return _SAVER


_PRUNE_CHECKPOINTS = """
DELETE FROM checkpoints WHERE thread_id = ?1 AND checkpoint_id < (
    SELECT MAX(c.checkpoint_id) FROM checkpoints c
    WHERE c.thread_id = ?1 AND c.checkpoint_ns = checkpoints.checkpoint_ns)"""
_PRUNE_WRITES = """
DELETE FROM writes WHERE thread_id = ?1 AND NOT EXISTS (
    SELECT 1 FROM checkpoints c WHERE c.thread_id = ?1 AND c.checkpoint_ns = writes.checkpoint_ns
    AND c.checkpoint_id = writes.checkpoint_id)"""


async def aprune_thread(saver: Any, thread_id: str) -> None:
    """Keep only the thread's latest checkpoint, when ``saver`` can prune (a PruningSaver can)."""
    try:
        await saver.aprune([thread_id])
    except NotImplementedError:  # another saver (an in-memory one in tests): it keeps everything
        pass


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
