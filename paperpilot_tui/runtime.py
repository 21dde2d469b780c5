"""Background work for the app: open the agent and stores, run turns, replay traces.

Everything here runs in Textual workers and reports through :mod:`paperpilot_tui.messages` only;
no widget is touched. ``core.agent`` (LangGraph, model code) is imported in a thread after the
first paint, so start-up stays fast and the UI keeps breathing while the hub starts.
"""

from __future__ import annotations

import asyncio
import importlib
import uuid
from types import SimpleNamespace
from typing import Any, Callable

from paperpilot_tui.messages import AgentEvent, AgentReady, AgentUnavailable, HistoryLoaded, ReplayState, StoresReady, TurnEnded

AgentFactory = Callable[[Any], Any]  # settings -> async context manager yielding an agent
StoresFactory = Callable[[Any], Any]  # settings -> object with facts / sessions / traces


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


def open_real_stores(settings: Any) -> Any:
    """The fact, session and trace stores on the state database (None for any not available)."""
    paths = settings.paths
    state_db = paths.resolve(paths.state_db)
    out = SimpleNamespace(facts=None, sessions=None, traces=None,
                          checkpoints=paths.resolve(paths.checkpoints_db))
    from core.memory.facts import FactStore
    from core.memory.sessions import SessionStore
    from core.tracing.store import TraceStore

    out.facts = FactStore(state_db, settings.memory)
    out.sessions = SessionStore(state_db)
    out.traces = TraceStore(state_db, settings.secrets())
    return out


def _quiet_stdio_servers(settings: Any) -> Any:
    """Settings whose MCP stdio servers write their stderr to a log file in the data directory,
    where it cannot scribble over the full-screen UI."""
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


class AgentHost:
    """App mixin: owns the agent, the stores and the turn/replay workers."""

    agent: Any = None
    stores: Any = None
    replay_control: ReplayControl | None = None

    def start_backend(self) -> None:
        self.run_worker(self._host_stores(), name="stores", group="stores", exit_on_error=False)
        self.run_worker(self._host_agent(), name="agent", group="agent", exclusive=True, exit_on_error=False)

    async def _host_stores(self) -> None:
        factory = self.stores_factory or open_real_stores
        try:
            self.stores = await asyncio.to_thread(factory, self.settings)
        except Exception as exc:  # noqa: BLE001 - the app runs without the browsers
            self.notify(f"memory/sessions/traces unavailable: {one_line(exc)}", severity="warning")
            return
        self.post_message(StoresReady())
        if self.replay_id:
            self.start_replay(self.replay_id)

    async def _host_agent(self) -> None:
        try:
            if self.agent_factory is None:
                mod = await asyncio.to_thread(importlib.import_module, "core.agent")
                cm = mod.open_agent(_quiet_stdio_servers(self.settings))
            else:
                cm = self.agent_factory(self.settings)
            async with cm as agent:
                self.agent = agent
                collection = getattr(agent, "collection", "") or self.settings.mcp.collection
                self.post_message(AgentReady(agent.brain_name, agent.hub_status, collection))
                if self.session_id and self.resume:
                    await self._load_history(self.session_id)
                await asyncio.Event().wait()  # hold the agent open until the app exits
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - shown in the status bar, app keeps running
            self.post_message(AgentUnavailable(one_line(exc)))
        finally:
            self.agent = None

    async def _load_history(self, session_id: str) -> None:
        try:
            turns = await self.agent.history(session_id)
        except Exception as exc:  # noqa: BLE001
            self.notify(f"could not load session {session_id}: {one_line(exc)}", severity="error")
            return
        self.main_screen.post_message(HistoryLoaded(session_id, [(t.question, t.answer) for t in turns]))

    def resume_session(self, session_id: str) -> None:
        """Switch the main screen to ``session_id`` and show its earlier turns."""
        self.session_id, self.resume = session_id, True
        if self.agent is not None:
            self.run_worker(self._load_history(session_id), group="history", exit_on_error=False)

    def ask(self, question: str) -> bool:
        """Start a turn in the background; False if the agent is not open yet."""
        if self.agent is None:
            self.notify("The agent is still starting (see the status bar).", severity="warning")
            return False
        self.run_worker(self._turn(question, self.session_id), name="turn", group="turn",
                        exclusive=True, exit_on_error=False)
        return True

    async def _turn(self, question: str, session_id: str) -> None:
        target = self.main_screen
        try:
            async for event in self.agent.run_turn(question, session_id):
                target.post_message(AgentEvent(event))
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - run_turn reports failures itself; this is a last guard
            target.post_message(AgentEvent(SimpleNamespace(kind="turn_failed", error=one_line(exc),
                                                           category="internal", node=None)))
        finally:
            target.post_message(TurnEnded())

    def cancel_turn(self) -> bool:
        """Cancel the running turn or replay; True if there was one."""
        workers = [w for w in self.workers if w.group == "turn" and not w.is_finished]
        for w in workers:
            w.cancel()
        return bool(workers)

    def start_replay(self, trace_id: str, speed: float = 1.0) -> None:
        self.cancel_turn()
        self.replay_control = ReplayControl(speed)
        self.main_screen.replaying = True
        self.run_worker(self._replay(trace_id, self.replay_control), name="replay", group="turn",
                        exclusive=True, exit_on_error=False)

    async def _replay(self, trace_id: str, control: ReplayControl) -> None:
        target = self.main_screen
        traces = getattr(self.stores, "traces", None)
        detail = None
        if traces is not None:
            full = await call(traces.resolve, trace_id) if hasattr(traces, "resolve") else trace_id
            detail = await call(traces.get, full or trace_id)
        if detail is None:
            self.notify(f"no trace with id {trace_id}", severity="error")
            return
        events = list(detail.events)
        prev = None
        try:
            for i, event in enumerate(events):
                await control.wait(0 if prev is None else max(event.ts - prev, 0.0))
                prev = event.ts
                target.post_message(AgentEvent(event, replay=True))
                target.post_message(ReplayState(detail.trace_id, control.paused, control.speed, i + 1, len(events)))
        finally:
            target.post_message(ReplayState(detail.trace_id, False, control.speed, len(events), len(events), done=True))
            target.post_message(TurnEnded())
