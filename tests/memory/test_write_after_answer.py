"""Facts are written after the turn's answer went out, and nothing is lost: the next turn, closing the
agent and cancelling its holder (the app quitting) all wait for the write. Real parts: the offline
brain, the bundled hub as a stdio process over the suite's indexed ``hub_db``, SQLite stores."""

from __future__ import annotations

import asyncio
import contextlib

from core.agent import open_agent
from core.config import load_settings
from core.memory.facts import FactStore
from core.memory.pending import PendingWrites
from core.tracing.store import TraceStore

QUESTION = "What rank does LoRA use by default?"


def _settings(hub_db):
    s = load_settings(use_user_file=False)
    s.agent.router, s.agent.critic = "rules", "rules"
    s.mcp.connections["hub"].args = ["-m", "core.hub", "serve", "--db", str(hub_db)]
    return s


def _saved(s) -> list[str]:
    store = FactStore(s.paths.resolve(s.paths.state_db), s.memory)
    try:
        return [f.content for f in store.list()]
    finally:
        store.close()


async def test_the_answer_goes_out_before_the_write_and_closing_waits_for_it(home, hub_db):
    s = _settings(hub_db)
    release = asyncio.Event()
    async with open_agent(s) as agent:
        real = agent.facts.memorize

        async def held(*args, **kwargs):  # the real write, held until the answer has been seen
            await release.wait()
            return await real(*args, **kwargs)

        agent.facts.memorize = held
        async with asyncio.timeout(300):  # a write inside the turn would wait here for ever
            events = [ev async for ev in agent.run_turn(QUESTION)]
        assert events[-1].kind == "turn_finished", events[-1]
        assert not [e for e in events if e.kind == "memory_written"]  # reported by the write, not the stream
        assert agent.writes.busy
        release.set()  # then straight to closing, as `ask` does
    written = _saved(s)
    assert written, "the write after the answer was lost on close"
    traces = TraceStore(s.paths.resolve(s.paths.state_db))
    try:
        (summary,) = traces.list()
        detail = traces.get(summary.trace_id)
    finally:
        traces.close()
    kinds = [e.kind for e in detail.events]
    assert kinds[-2:] == ["memory_written", "turn_finished"], kinds[-4:]  # where a write in the turn puts it
    assert sorted(detail.memorized_facts) == sorted(written)

async def test_cancelling_the_holder_right_after_the_answer_loses_nothing(home, hub_db):
    """The app quits by cancelling the worker that holds the agent open: the write still lands."""
    s = _settings(hub_db)
    answered = asyncio.Event()
    seen: list = []

    async def hold():
        async with open_agent(s) as agent:
            agent.writes.listen(seen.append)
            events = [ev async for ev in agent.run_turn(QUESTION)]
            assert events[-1].kind == "turn_finished"
            answered.set()
            await asyncio.Event().wait()

    task = asyncio.create_task(hold())
    async with asyncio.timeout(300):
        await answered.wait()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert task.cancelled()
    written = _saved(s)
    assert written
    assert [e.kind for e in seen] == ["memory_written"] and sorted(seen[0].facts) == sorted(written)


async def test_settle_shields_the_write_from_a_cancelled_waiter():
    writes, done = PendingWrites(), []

    async def write():
        await asyncio.sleep(0.2)
        done.append("written")
        return []

    writes.start([write], "t1", [])
    waiter = asyncio.create_task(writes.settle())
    await asyncio.sleep(0.01)
    waiter.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await waiter
    assert waiter.cancelled() and done == ["written"]  # the waiter waited for the write, then was cancelled


async def test_every_waiter_waits_for_the_write():
    """A turn waiting for the write while the agent closes: the close must not pass it by."""
    writes, done = PendingWrites(), []

    async def write():
        await asyncio.sleep(0.2)
        done.append("written")
        return []

    writes.start([write], "t1", [])
    first = asyncio.create_task(writes.settle())
    await asyncio.sleep(0.01)
    await writes.settle()
    assert done == ["written"]
    await first
    assert not writes.busy and await writes.settle() == []
