"""Errors that cross module boundaries, below everything (standard library only).

Brains, the MCP client and the agent raise them; the CLI and the app catch them to print one line.
"""

from __future__ import annotations

import time
from collections.abc import Iterator


class BrainError(Exception):
    """A brain could not produce a judgement (e.g. the LLM endpoint is unreachable)."""


class BackendUnavailable(BrainError):
    """An external backend (LLM endpoint, MCP server) cannot be reached; one user-facing line."""


# How the knowledge hub words a tool error that is its own store's fault (a database that failed
# mid-query), unlike a bad request: the client raises BackendUnavailable for it, never "no evidence".
BACKEND_FAULT = "the knowledge hub's backend failed"


class StoreUnreadable(Exception):
    """A data file is not a readable SQLite database; the message names it and what to do."""

    @classmethod
    def of(cls, path: object, exc: BaseException) -> StoreUnreadable:
        """The error for ``exc`` raised opening ``path``: :class:`StoreBusy` when another process
        holds the file locked (:func:`locked`), which is no damage; else this class, which is."""
        if locked(exc):
            return StoreBusy(f"{path} is in use by another process or connection ({exc}) past the wait; the "
                             "file is fine: try again once it is done")
        return cls(f"{path} is not a readable database ({exc}); move it aside (mv {path} {path}.bad) "
                   "to start it afresh, or restore it from a backup")


class StoreBusy(StoreUnreadable):
    """A data file another process holds locked for longer than the wait: healthy, try again (every
    handler of :class:`StoreUnreadable` prints it as one line)."""


def lock_waits(wait_s: float) -> Iterator[float]:
    """The pauses between tries of opening a store that SQLite answered "locked" without waiting (it
    does so in some WAL states): 20 ms doubling to 0.5 s, for as long as ``wait_s`` lasts."""
    deadline, pause = time.monotonic() + wait_s, 0.02
    while time.monotonic() + pause < deadline:
        yield pause
        pause = min(pause * 2, 0.5)


def locked(exc: BaseException) -> bool:
    """Whether an ``sqlite3`` error is SQLITE_BUSY or SQLITE_LOCKED (any extended code): another
    connection holds the lock, the file itself is fine."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (5, 6)
    return "database is locked" in str(exc) or "database table is locked" in str(exc)


class LLMUnavailable(BackendUnavailable):
    """The configured LLM endpoint cannot be reached (the knowledge hub may be fine)."""


class UnsafePath(StoreUnreadable):
    """A data path that is not ours to use: a directory where a file belongs, another user's file
    or folder, one others can write to. The message names the path (and its settings key) and what
    to do; every handler of :class:`StoreUnreadable` prints it as one line."""
