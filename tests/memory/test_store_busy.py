"""A data file another process holds locked is busy, not damaged: PaperPilot waits, and past the
wait says so in one line; it never tells the user to move a healthy file aside.

A real second SQLite connection holds the lock (``BEGIN EXCLUSIVE`` on a rollback-journal file, so
that nobody can switch it to WAL or read it meanwhile); the wait is shortened for the test."""

from __future__ import annotations

import asyncio
import sqlite3
import threading

import pytest

from core.errors import StoreBusy, StoreUnreadable
from core.memory import db
from core.memory.checkpoints import open_checkpointer
from core.memory.db import StateDB


def _hold(path, release_after: float | None = None) -> sqlite3.Connection:
    """A connection holding an exclusive lock on ``path`` (released after ``release_after`` s, if set)."""
    holder = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    holder.execute("CREATE TABLE IF NOT EXISTS t (x)")
    holder.execute("BEGIN EXCLUSIVE")
    if release_after is not None:
        threading.Timer(release_after, lambda: holder.execute("COMMIT")).start()
    return holder


async def _open_checkpointer(path):
    async with open_checkpointer(path) as saver:
        return await saver.aget_tuple({"configurable": {"thread_id": "S", "checkpoint_ns": ""}})


@pytest.mark.parametrize("store", ["checkpoints", "state"])
def test_a_lock_held_past_the_wait_is_busy_and_names_no_damage(tmp_path, monkeypatch, store):
    monkeypatch.setattr(db, "BUSY_TIMEOUT_MS", 300)
    path = tmp_path / f"{store}.sqlite3"
    path.touch(mode=0o600)
    holder = _hold(path)
    try:
        with pytest.raises(StoreUnreadable) as err:
            if store == "checkpoints":
                asyncio.run(_open_checkpointer(path))
            else:
                StateDB(path)
    finally:
        holder.close()
    assert isinstance(err.value, StoreBusy)
    message = str(err.value)
    assert str(path) in message and "in use by another process" in message
    assert "move it aside" not in message and "not a readable database" not in message
    assert len(message.splitlines()) == 1


@pytest.mark.parametrize("store", ["checkpoints", "state"])
def test_a_lock_released_within_the_wait_is_waited_for(tmp_path, monkeypatch, store):
    monkeypatch.setattr(db, "BUSY_TIMEOUT_MS", 5000)
    path = tmp_path / f"{store}.sqlite3"
    path.touch(mode=0o600)
    holder = _hold(path, release_after=0.3)
    try:
        if store == "checkpoints":
            assert asyncio.run(_open_checkpointer(path)) is None  # opened: a new thread has no checkpoint
        else:
            StateDB(path).close()
    finally:
        holder.close()


def test_a_damaged_file_is_still_unreadable_and_says_what_to_do(tmp_path):
    path = tmp_path / "checkpoints.sqlite3"
    path.write_bytes(b"this is not a database" * 200)
    path.chmod(0o600)
    with pytest.raises(StoreUnreadable) as err:
        asyncio.run(_open_checkpointer(path))
    assert not isinstance(err.value, StoreBusy) and "move it aside" in str(err.value)


class _LockedOnce(sqlite3.Connection):
    """A real connection whose first statement meets "database is locked" at once, as SQLite answers in
    some WAL states without calling the busy handler (the edge this cannot stage on demand)."""

    def execute(self, *args):
        raise sqlite3.OperationalError("database is locked")


@pytest.mark.parametrize("store", ["checkpoints", "state"])
def test_a_lock_answered_without_waiting_is_tried_again(tmp_path, monkeypatch, store):
    real = sqlite3.connect
    calls: list[int] = []

    def connect(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs, **({"factory": _LockedOnce} if len(calls) == 1 else {}))

    monkeypatch.setattr(sqlite3, "connect", connect)
    path = tmp_path / f"{store}.sqlite3"
    if store == "checkpoints":
        assert asyncio.run(_open_checkpointer(path)) is None
    else:
        StateDB(path).close()
    assert len(calls) == 2  # the first connection was closed and a second one opened the store
