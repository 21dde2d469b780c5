"""The session: the one owner of the agent, the stores, the running turn or replay and the session id.

The app composes one :class:`Session`. After the first paint it opens the stores and the agent
in workers; each turn or replay then runs in one worker of the ``turn`` group. It reports only
through typed messages (:mod:`paperpilot_tui.messages`): lifecycle messages to the app, turn
events to the main screen. "Busy" is that worker's state, and the app forwards the worker's
``Worker.StateChanged`` here, which is where a turn's end is announced.
"""

from __future__ import annotations

import asyncio
import importlib
from typing import Any

from textual.app import App
from textual.message_pump import MessagePump
from textual.worker import Worker, WorkerState

from core.events import TurnFailed
from paperpilot_tui.messages import (
    AgentEvent, AgentReady, AgentUnavailable, AgentWarm, AgentWarming, HistoryLoaded, HubIndexing, LastSession, ReplayState,
    StoresReady, TurnEnded,
)
from paperpilot_tui.protocols import Agent, AgentFactory, Stores, StoresFactory
from paperpilot_tui.runtime import ReplayControl, call, new_session_id, one_line, quiet_stdio_servers

TURN_GROUP = "turn"


def _open_stores(settings: Any) -> Stores:
    from core.stores import open_stores

    return open_stores(settings).open_all()


def _failed_part(exc: BaseException) -> str:
    from core.errors import BackendUnavailable, LLMUnavailable

    if isinstance(exc, LLMUnavailable):
        return "brain"
    return "hub" if isinstance(exc, BackendUnavailable) else "agent"


class Session:
    """Owns one conversation's agent, stores, session id and its turn or replay worker."""

    def __init__(self, app: App, target: MessagePump, settings: Any, *, session_id: str | None = None,
                 agent_factory: AgentFactory | None = None, stores_factory: StoresFactory | None = None,
                 check_collection: bool = False) -> None:
        self.app, self.target, self.settings = app, target, settings
        # the collection was named by the user (--collection): once the agent is open, say in one line
        # when the hub has no such collection, with the ones it has
        self.check_collection = check_collection
        self.session_id = session_id or new_session_id()
        self.resumed = session_id is not None
        self.agent: Agent | None = None
        self.stores: Stores | None = None
        self.worker: Worker | None = None  # the current turn or replay
        self.run = 0  # bumped per turn/replay; the main screen ignores messages of older runs
        self.replay_control: ReplayControl | None = None
        self._agent_factory = agent_factory
        self._stores_factory = stores_factory or _open_stores
        self._runs: dict[Worker, int] = {}
        self.scopes: dict[int, str] = {}  # run -> the document an @paper mention scoped that turn to
        self._stores_tried = asyncio.Event()  # set once opening the stores succeeded or failed
        self.warm = asyncio.Event()  # set once the agent is warm, or could not start (see agent_error)
        self.agent_error = ""

    # ---- state -----------------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        """A turn or replay is running (the worker's own state, nothing else)."""
        return self.worker is not None and not self.worker.is_finished

    @property
    def replaying(self) -> bool:
        return self.busy and self.worker is not None and self.worker.name == "replay"

    # ---- start-up --------------------------------------------------------------------------------

    def start(self) -> None:
        """Open the stores and the agent in the background (called after the first paint)."""
        self.app.run_worker(self._open_stores(), name="stores", group="stores", exit_on_error=False)
        self.app.run_worker(self._hold_agent(), name="agent", group="agent", exclusive=True, exit_on_error=False)

    async def _open_stores(self) -> None:
        try:
            self.stores = await asyncio.to_thread(self._stores_factory, self.settings)
        except Exception as exc:  # noqa: BLE001 - the app runs without the browsers
            self.app.notify(f"memory/sessions/traces unavailable: {one_line(exc)}", severity="warning")
            return
        finally:
            self._stores_tried.set()
        self.app.post_message(StoresReady())
        if self.settings.tui.resume == "last" and not self.resumed:  # --continue, and no --session
            await self._find_last()

    async def _find_last(self) -> None:
        """Post the most recently used session (None: there is none yet) for the app to reopen."""
        store = getattr(self.stores, "sessions", None)
        try:
            last = await call(store.list, 1) if store is not None else []
        except Exception as exc:  # noqa: BLE001 - the app starts a new session instead
            self.app.notify(f"could not find the last session: {one_line(exc)}", severity="warning")
            last = []
        self.app.post_message(LastSession(last[0].id if last else None))

    async def _hold_agent(self) -> None:
        opened = None  # this worker's agent: a restart's new worker may have set its own by the time this one ends
        try:
            if self._agent_factory is None:
                mod = await asyncio.to_thread(importlib.import_module, "core.agent")
                cm = mod.open_agent(quiet_stdio_servers(self.settings), pace=self.settings.tui.answer_pace)
            else:
                cm = self._agent_factory(self.settings)
            async with cm as agent:
                self.agent = opened = agent
                if (writes := getattr(agent, "writes", None)) is not None:  # facts written after the answer
                    writes.listen(lambda ev: self.target.post_message(AgentEvent(ev, self.run)))
                self.agent_error = ""
                collection = getattr(agent, "collection", "") or self.settings.mcp.collection
                self.app.post_message(AgentReady(agent.brain_name, agent.hub_status, collection))
                if self.check_collection:
                    await self._check_collection(agent, collection)
                if self.resumed:
                    await self._load_history(self.session_id)
                await self._warm_up(agent)
                from core.warmup import follow_indexing

                await follow_indexing(agent, lambda n: self.app.post_message(HubIndexing(n)))
                await asyncio.Event().wait()  # hold the agent open until the app exits
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - shown in the status bar, app keeps running
            self.agent_error = one_line(exc)
            self.warm.set()  # a waiting question learns that the agent could not start
            self.app.post_message(AgentUnavailable(self.agent_error, _failed_part(exc)))
        finally:
            if self.agent is opened:
                self.agent = None

    async def _check_collection(self, agent: Agent, collection: str) -> None:
        from paperpilot_tui.hub_collections import check

        self.check_collection = False
        if unknown := await check(getattr(agent, "hub", None), collection):
            self.app.notify(f"{unknown}. {self.app.keys_for('open_collections')}: pick one.",
                            title="Collection", severity="error", timeout=20)

    @property
    def collection(self) -> str:
        """The collection the next question is answered from (the agent is opened on it)."""
        return self.settings.mcp.collection

    def use_collection(self, name: str) -> bool:
        """Answer the next questions from collection ``name``: the agent is opened again on it (its
        vocabulary, topics and search are the collection's), in the same conversation. Refused (False,
        with a notice) while a turn runs."""
        if self.busy:
            self.app.notify("A turn is running: switch the collection once it ends (esc cancels it).",
                            severity="warning")
            return False
        if name == self.collection and self.agent is not None:
            return True
        mcp = self.settings.mcp.model_copy(update={"collection": name})
        self.settings = self.settings.model_copy(update={"mcp": mcp})
        self.restart()
        return True

    async def _warm_up(self, agent: Agent) -> None:
        from core.warmup import warm_up

        def report(phase: str, done: int, total: int) -> None:
            self.app.post_message(AgentWarming(phase, done, total))

        try:
            await warm_up(agent, report)
        except Exception as exc:  # noqa: BLE001 - warming is an optimisation: the agent still answers
            self.app.notify(f"warm-up stopped early: {one_line(exc)}", severity="warning")
        self.warm.set()
        self.app.post_message(AgentWarm())

    def restart(self, provider: str | None = None) -> None:
        """Open the agent again (after it failed to start), optionally with another brain
        (``llm.provider``); the running agent, if any, is closed first."""
        self.cancel()
        self.warm.clear()
        if provider is not None:
            llm = self.settings.llm.model_copy(update={"provider": provider})
            self.settings = self.settings.model_copy(update={"llm": llm})
        self.app.run_worker(self._hold_agent(), name="agent", group="agent", exclusive=True, exit_on_error=False)

    async def _load_history(self, session_id: str, *, restored: bool = False, then_ask: str | None = None) -> None:
        turns: list = []
        if self.agent is not None and (self.resumed or restored):
            try:
                turns = await self.agent.history(session_id)
            except Exception as exc:  # noqa: BLE001
                self.app.notify(f"could not load session {session_id}: {one_line(exc)}", severity="error")
                if not restored:
                    return
        last = await self._last_trace(session_id, turns[-1].question) if turns else []
        shown = [(t.question, getattr(t, "shown", t.answer)) for t in turns]  # a failed turn: "✗ failed: …"
        from paperpilot_tui.session_scopes import recall

        self.target.post_message(HistoryLoaded(session_id, shown, restored=restored, then_ask=then_ask,
                                               last_events=last, scopes=recall(self.settings, session_id)))

    async def _last_trace(self, session_id: str, question: str) -> list:
        """The events of the session's most recent recorded turn that asked ``question`` (its last turn)."""
        await self._stores_tried.wait()
        traces = getattr(self.stores, "traces", None)
        if traces is None:
            return []
        try:
            recent = await call(traces.list, session_id, 20)
            match = next((t for t in recent if t.question == question), None)
            detail = await call(traces.get, match.trace_id) if match else None
        except Exception:  # noqa: BLE001 - the conversation still shows, without its sources
            return []
        return list(detail.events) if detail is not None else []

    # ---- what the user does ----------------------------------------------------------------------

    def ask(self, question: str, doc_id: str | None = None) -> bool:
        """Start a turn (``doc_id``: answered from that one document); False (with a notice) if the
        agent could not start, a turn is running or the question is over ``limits.question_chars``.
        A question asked while the agent still starts or warms up waits for it, visibly."""
        limit = self.settings.limits.question_chars
        if len(question) > limit:  # refused before any work; the box keeps it to shorten
            from core.limits import LimitExceeded

            self.app.notify(f"{LimitExceeded('Your question', len(question), limit, 'question_chars')}; "
                            "it stays in the box.", severity="error", timeout=8)
            return False
        if self.agent is None and self.warm.is_set():
            self.app.notify(f"The agent is not running ({self.agent_error or 'stopped'}); ctrl+p → Retry.",
                            severity="error")
            return False
        if self.busy:
            self.app.notify("A turn is running: your question stays in the box (esc cancels the turn).",
                            severity="warning")
            return False
        self._start(self._turn(question, self.session_id, doc_id), "turn")
        self._remember(question, doc_id)
        if doc_id:
            self.scopes[self.run] = doc_id
        return True

    def _remember(self, question: str, doc_id: str | None) -> None:
        """Keep this session's collection and the question's @paper scope for when it is reopened."""
        from paperpilot_tui import session_collections, session_scopes

        try:
            session_collections.remember(self.settings, self.session_id, self.collection)
            session_scopes.remember(self.settings, self.session_id, question, doc_id)
        except OSError as exc:  # the turn goes on; only reopening it later loses its collection or scope
            self.app.notify(f"could not remember this session's collection and scope: {one_line(exc)}",
                            severity="warning")

    def cancel(self, *, by_user: bool = False) -> bool:
        """Stop the running turn or replay; True if there was one. A turn the user cancels ends
        with a ``TurnFailed(category="cancelled")`` on the main screen."""
        worker = self.worker
        if worker is None or worker.is_finished:
            return False
        from core.brains.llm.inflight import STILL_FINISHING, busy

        waiting = busy()  # asked before the cancellation lands: the requests open right now
        worker.cancel()
        if by_user and worker.name == "turn":
            busy_note = f"{STILL_FINISHING} at {', '.join(waiting)}" if waiting else ""
            error = "cancelled by you (esc)" + (f"; {busy_note}" if busy_note else "")
            self.target.post_message(AgentEvent(TurnFailed(error=error, category="cancelled"), self.run))
            if busy_note:  # the next question may wait behind it on a one-slot server
                self.app.notify(busy_note[0].upper() + busy_note[1:] + "; the next answer may wait for it.",
                                severity="warning", timeout=8)
        return True

    def new(self) -> str:
        """Cancel whatever runs and start a fresh session id."""
        self.cancel()
        self.session_id, self.resumed = new_session_id(), False
        return self.session_id

    def resume(self, session_id: str) -> None:
        """Cancel whatever runs, switch to ``session_id`` and load its earlier turns, on the collection
        it was asked in (the agent is opened again on it; the new agent then loads the history)."""
        from paperpilot_tui.session_collections import recall

        self.cancel()
        self.session_id, self.resumed = session_id, True
        asked_in = recall(self.settings, session_id)
        if asked_in and asked_in != self.collection:
            mcp = self.settings.mcp.model_copy(update={"collection": asked_in})
            self.settings = self.settings.model_copy(update={"mcp": mcp})
            self.restart()
        elif self.agent is not None:
            self.app.run_worker(self._load_history(session_id), group="history", exit_on_error=False)

    def restore(self, then_ask: str | None = None) -> None:
        """Show this session's conversation again (after a replay took the panes); then, optionally, ask."""
        self.cancel()
        self.app.run_worker(self._load_history(self.session_id, restored=True, then_ask=then_ask),
                            group="history", exit_on_error=False)

    def replay(self, trace_id: str, speed: float = 1.0) -> None:
        """Cancel whatever runs and play a recorded turn through the same handlers as a live one."""
        self.cancel()
        self.replay_control = ReplayControl(speed)
        self._start(self._replay(trace_id, self.replay_control), "replay")

    # ---- workers ---------------------------------------------------------------------------------

    def _start(self, work: Any, name: str) -> None:
        self.run += 1
        self.worker = self.app.run_worker(work, name=name, group=TURN_GROUP, exclusive=True, exit_on_error=False)
        self._runs[self.worker] = self.run

    def worker_changed(self, event: Worker.StateChanged) -> None:
        """The app forwards ``Worker.StateChanged`` here: a finished turn/replay worker ends its run."""
        worker = event.worker
        if worker not in self._runs or not worker.is_finished:
            return
        run = self._runs.pop(worker)
        if event.state is WorkerState.ERROR and worker.name == "turn":
            error = one_line(worker.error) if worker.error else "unknown error"
            self.target.post_message(AgentEvent(TurnFailed(error=f"internal error: {error}", category="internal"), run))
        self.target.post_message(TurnEnded(run))

    async def _turn(self, question: str, session_id: str, doc_id: str | None = None) -> None:
        run = self.run
        if not self.warm.is_set():
            self.target.post_message(AgentWarming("your question waits for the warm-up"))
            await self.warm.wait()
        if self.agent is None:
            self.target.post_message(AgentEvent(TurnFailed(
                error=f"the agent could not start: {self.agent_error}", category="backend"), run))
            return
        scope = {"doc_id": doc_id} if doc_id else {}  # agents that cannot scope are never asked to
        async for event in self.agent.run_turn(question, session_id, **scope):
            self.target.post_message(AgentEvent(event, run))

    async def _replay(self, trace_id: str, control: ReplayControl) -> None:
        run = self.run
        traces = getattr(self.stores, "traces", None)
        detail = None
        if traces is not None:
            full = await call(traces.resolve, trace_id)
            detail = await call(traces.get, full or trace_id)
        if detail is None:
            self.app.notify(f"no trace with id {trace_id}", severity="error")
            return
        events = list(detail.events)
        prev, shown = None, 0
        try:
            for event in events:
                await control.wait(0 if prev is None else max(event.ts - prev, 0.0))
                prev = event.ts
                self.target.post_message(AgentEvent(event, run, replay=True))
                shown += 1
                self.target.post_message(ReplayState(detail.trace_id, control.paused, control.speed, shown,
                                                     len(events), run=run))
        finally:  # done, or stopped early at ``shown``
            self.target.post_message(ReplayState(detail.trace_id, False, control.speed, shown, len(events),
                                                 done=True, run=run))
