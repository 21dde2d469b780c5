"""Sessions: one row per conversation (id = LangGraph thread id), for listing, naming and deleting.

The conversation itself lives in the checkpoint database (:mod:`core.memory.checkpoints`); this
table only says which sessions exist, what they are called and how far they went. The agent sets
``turn_count`` from the checkpointed history after every turn (under the session's turn lock), so the
two agree even after a failed turn. Titles are scrubbed of secrets before they are stored.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from pydantic import BaseModel

from core.memory.db import StateDB
from core.memory.text import shorten
from core.redact import Redactor

TITLE_CHARS = 60
_COLS = "id, title, created, updated, turn_count"


class Session(BaseModel):
    id: str
    title: str
    created: float
    updated: float
    turn_count: int = 0


class SessionNotFound(KeyError):
    def __str__(self) -> str:
        return f"no session with id {self.args[0]}"


def _session(row) -> Session:
    return Session(id=row[0], title=row[1], created=row[2], updated=row[3], turn_count=row[4])


class SessionStore:
    def __init__(self, path: Path, secrets: list[str] | None = None):
        self.db = StateDB(path)
        self._redact = Redactor(secrets)

    def close(self) -> None:
        self.db.close()

    async def begin_turn(self, session_id: str, question: str) -> Session:
        """Create the session on its first turn (titled by the question); mark it as updated."""
        return await asyncio.to_thread(self.begin_turn_sync, session_id, question)

    async def end_turn(self, session_id: str, turns: int | None = None) -> Session | None:
        """Mark the session updated; ``turns``: its number of turns as the checkpoints have it
        (None: one more than before)."""
        return await asyncio.to_thread(self.end_turn_sync, session_id, turns)

    def begin_turn_sync(self, session_id: str, question: str) -> Session:
        now = time.time()
        with self.db.write() as conn:
            conn.execute(
                "INSERT INTO sessions (id, title, created, updated) VALUES (?, ?, ?, ?)"
                " ON CONFLICT(id) DO UPDATE SET updated = excluded.updated",
                (session_id, shorten(self._redact.text(question), TITLE_CHARS) or session_id, now, now),
            )
            return _session(conn.execute(f"SELECT {_COLS} FROM sessions WHERE id = ?", (session_id,)).fetchone())

    def end_turn_sync(self, session_id: str, turns: int | None = None) -> Session | None:
        with self.db.write() as conn:
            conn.execute("UPDATE sessions SET turn_count = COALESCE(?, turn_count + 1), updated = ? WHERE id = ?",
                         (turns, time.time(), session_id))
            row = conn.execute(f"SELECT {_COLS} FROM sessions WHERE id = ?", (session_id,)).fetchone()
        return _session(row) if row else None

    def list(self, limit: int | None = None) -> list[Session]:
        """Most recently used first."""
        with self.db.read() as conn:
            rows = conn.execute(f"SELECT {_COLS} FROM sessions ORDER BY updated DESC, id LIMIT ?",
                                (-1 if limit is None else int(limit),)).fetchall()
        return [_session(r) for r in rows]

    def get(self, session_id: str) -> Session | None:
        with self.db.read() as conn:
            row = conn.execute(f"SELECT {_COLS} FROM sessions WHERE id = ?", (session_id,)).fetchone()
        return _session(row) if row else None

    def rename(self, session_id: str, title: str) -> Session:
        title = " ".join(self._redact.text(title).split())
        if not title:
            raise ValueError("a session title needs some text")
        with self.db.write() as conn:
            if not conn.execute("UPDATE sessions SET title = ? WHERE id = ?", (title, session_id)).rowcount:
                raise SessionNotFound(session_id)
            return _session(conn.execute(f"SELECT {_COLS} FROM sessions WHERE id = ?", (session_id,)).fetchone())

    def delete(self, session_id: str, checkpoints_path: Path | None = None) -> bool:
        """Remove the session, its traces and (given the checkpoint db) its LangGraph checkpoints."""
        if checkpoints_path is not None:
            from core.memory.checkpoints import delete_thread

            delete_thread(checkpoints_path, session_id)
        return self._delete_rows(session_id)

    async def adelete(self, session_id: str, checkpoints_path: Path | None = None) -> bool:
        """:meth:`delete` for async callers (the app): checkpoints go through ``adelete_thread``."""
        if checkpoints_path is not None:
            from core.memory.checkpoints import adelete_thread

            await adelete_thread(checkpoints_path, session_id)
        return await asyncio.to_thread(self._delete_rows, session_id)

    def _delete_rows(self, session_id: str) -> bool:
        with self.db.write() as conn:
            conn.execute("DELETE FROM traces WHERE session_id = ?", (session_id,))
            return conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,)).rowcount > 0
