"""Writes that finish after a turn's answer went out: long-term memory off the turn's critical path.

A turn's answer is delivered (``TurnFinished``) before its facts are vetted and written; the write
runs as a task the agent owns (:meth:`core.agent.Agent.run_turn`). Nothing is lost: the next turn
waits for it before it recalls anything, and closing the agent (quitting the app, the end of
``ask``) waits for it before the stores and the hub close, even when the waiter itself is being
cancelled. What a write reports (its ``MemoryWritten``) goes to the turn's trace and to listeners.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

Listener = Callable[[Any], None]
log = logging.getLogger(__name__)


class PendingWrites:
    """At most one write in flight per agent (turns never overlap); :meth:`settle` waits for it."""

    def __init__(self) -> None:
        self._task: asyncio.Task | None = None
        self._listeners: list[Listener] = []

    @property
    def busy(self) -> bool:
        return self._task is not None and not self._task.done()

    def listen(self, listener: Listener) -> None:
        """``listener(event)`` gets each event a finished write reports (the app's memory pane)."""
        self._listeners.append(listener)

    def start(self, writes: list[Callable[[], Awaitable[list[Any]]]], turn_id: str, events: list[Any],
              save: Callable[[list[Any]], Awaitable[Any]] | None = None) -> None:
        """Run a turn's ``writes`` in the background, in order; each returns the events it reports.
        Those join ``events`` (the turn's, for its trace) just before its TurnFinished, where a write
        inside the turn would have put them; then ``save(events)`` stores the trace. The previous
        write has been settled already (the turn that starts this one waited for it)."""
        assert not self.busy, "a write is still pending: settle() first"
        work = self._run(writes, turn_id, events, save)
        self._task = asyncio.get_running_loop().create_task(work, name="memory-write")

    async def _run(self, writes: list, turn_id: str, events: list[Any], save: Any) -> list[Any]:
        reported: list[Any] = []
        try:
            for write in writes:
                for event in await write():
                    event.turn_id = turn_id
                    reported.append(event)
            end = max((i for i, e in enumerate(events) if getattr(e, "kind", "") == "turn_finished"),
                      default=len(events))
            events[end:end] = reported
            if save is not None:
                await save(events)
        except Exception as exc:  # noqa: BLE001 - the answer went out already: nowhere to raise to
            log.warning("the memory write after turn %s failed: %s", turn_id, exc)
        for event in reported:
            for listener in self._listeners:
                try:
                    listener(event)
                except Exception:  # a listener's failure must not lose the write
                    log.warning("a memory-write listener failed", exc_info=True)
        return reported

    async def settle(self) -> list[Any]:
        """Wait for the pending write; return what it reported (``[]`` when none was pending). Any
        number may wait at once (a turn about to start, and the agent closing under it).

        The write is shielded: cancelling the waiter (the app quitting right after an answer) does
        not cancel the write; the waiter still waits for it, then the cancellation goes on.
        """
        task = self._task
        if task is None:
            return []
        cancelled = False
        while not task.done():
            try:
                await asyncio.shield(task)
            except asyncio.CancelledError:
                if task.done():
                    break
                cancelled = True  # ours, not the write's: keep waiting, then pass it on
        if self._task is task:  # every waiter saw it finish; the next settle has nothing to wait for
            self._task = None
        if cancelled:
            raise asyncio.CancelledError
        return [] if task.cancelled() or task.exception() is not None else task.result()
