"""One turn at a time per session, across processes: an OS file lock per session.

A turn reads the session's history from the checkpoint database when it starts and writes one
checkpoint when it ends (``durability="exit"``). Two processes running a turn in one session at once
(the app and ``paperpilot ask``, two windows) would both start from the same history, and the last
one to write would silently drop the other's turn. :class:`TurnLock` holds an exclusive ``flock``
on ``<data dir>/locks/<session>.lock`` from before the history is read until the checkpoint and the
session row are written. The kernel releases it when the process exits, however it exits
(``kill -9`` included), so a crashed window never leaves a session locked.

``flock`` locks belong to an open file, so two agents in one process exclude each other too.
Waiting polls a non-blocking ``flock`` (no thread stuck in a blocking call, and a cancelled turn
stops waiting at once).
"""

from __future__ import annotations

import asyncio
import fcntl
import hashlib
import os
import re
import time
from pathlib import Path
from typing import Any

LOCKS_DIR = "locks"
POLL_S = 0.05
_SAFE = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}")


def lock_path(locks_dir: Path, session_id: str) -> Path:
    """The lock file of a session: its id when that is a plain file name, else a hash of it."""
    name = session_id if _SAFE.fullmatch(session_id) else hashlib.sha256(session_id.encode()).hexdigest()[:32]
    return Path(locks_dir) / f"{name}.lock"


class TurnLock:
    """The exclusive right to run a turn in one session; ``async with`` tries once, :meth:`wait` waits.

    ``async with TurnLock(...) as lock`` takes the lock if it is free (``lock.held``) and always
    releases it on exit; when it was busy, :meth:`wait` polls for it up to ``wait_s`` seconds
    (``busy="wait"``) or gives up at once (``busy="fail"``).
    """

    def __init__(self, locks_dir: Path | None, session_id: str, *, busy: str = "wait", wait_s: float = 300.0):
        self.path = None if locks_dir is None else lock_path(locks_dir, session_id)
        self.session_id, self.busy, self.wait_s = session_id, busy, wait_s
        self._fd: int | None = None
        self.waited_s = 0.0

    @classmethod
    def of(cls, settings: Any, session_id: str, persists: bool = True) -> TurnLock:
        """The lock of ``session_id`` under the settings' data dir, as ``agent.session_*`` say;
        ``persists=False`` (no checkpoints: benchmarks, some tests) gives one that is always held."""
        agent = settings.agent
        locks = settings.paths.resolve(LOCKS_DIR) if persists else None
        return cls(locks, session_id, busy=agent.session_busy, wait_s=agent.session_wait)

    @property
    def held(self) -> bool:
        return self.path is None or self._fd is not None

    def try_acquire(self) -> bool:
        if self.held:
            return True
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        return True

    async def wait(self) -> bool:
        """Wait for the lock (``busy="wait"``, at most ``wait_s``); True once held."""
        if self.try_acquire():
            return True
        if self.busy != "wait":
            return False
        start = time.monotonic()
        deadline = start + self.wait_s
        while time.monotonic() < deadline:
            await asyncio.sleep(POLL_S)
            if self.try_acquire():
                self.waited_s = time.monotonic() - start
                return True
        self.waited_s = time.monotonic() - start
        return False

    def release(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)  # closing the last descriptor of the open file drops its flock

    def waiting_message(self) -> str:
        return f"waiting for session {self.session_id}: another window is running a turn in it"

    def busy_message(self) -> str:
        if self.busy == "wait":
            return (f"session {self.session_id} is busy: another window's turn still runs after "
                    f"{self.wait_s:g} s (agent.session_wait)")
        return f"session {self.session_id} is busy: another window is running a turn in it (agent.session_busy: fail)"

    async def __aenter__(self) -> TurnLock:
        self.try_acquire()
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.release()
