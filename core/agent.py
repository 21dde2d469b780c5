"""The agent runtime: opens the hub session, the checkpointer and the stores, and runs turns.

``run_turn`` is the single producer of :mod:`core.events`: it streams LangGraph's custom events
(``subgraphs=True``) and wraps them between TurnStarted and TurnFinished/TurnFailed, whose result is
the fold of the turn's events (:func:`core.tracing.fold.fold`). Errors become one user-facing line;
the session (checkpointed messages) and the facts survive a failed turn. Each turn runs under its
LLM budget (:mod:`core.budget`): a turn stopped by it ends with its best draft as a forced pass, or
fails with category ``budget`` when no draft was written.

A turn holds its session's :class:`~core.memory.turnlock.TurnLock` from reading the history to writing
the checkpoint and session row (turns never interleave); its question is scrubbed of secrets first.

The facts a turn learns are written after its answer went out (:mod:`core.memory.pending`): the
write's ``MemoryWritten`` goes to the turn's trace and to :attr:`Agent.writes`' listeners, not into
the stream (whose last event stays TurnFinished). The next turn and closing the agent wait for it.
"""

from __future__ import annotations

import asyncio
import functools
import threading
import time
import uuid
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any
from collections.abc import AsyncIterator

from core import budget
from core.brains.base import Brain, share_vocabulary
from core.budget import BudgetExceeded
from core.errors import BackendUnavailable, LLMUnavailable
from core.config import ConfigError, Settings
from core.events import Event, NodeFinished, NodeStarted, Notice, TurnFailed, TurnFinished, TurnStarted
from core.memory.checkpoints import aprune_thread
from core.memory.history import RecordedTurn, failure_message, turns_from_messages
from core.memory.pending import PendingWrites
from core.memory.turnlock import TurnLock
from core.redact import Redactor
from core.research.types import Outline
from core.state import turn_input
from core.tracing.fold import fold
from core.vocabulary import Vocabulary


VOCABULARY_CHECK_S = 5.0  # how often a turn asks whether the collection's vocabulary changed


def new_id() -> str:
    return uuid.uuid4().hex[:12]


class Agent:
    """One open agent: a compiled graph plus everything its nodes need."""

    def __init__(self, settings: Settings, brain: Brain, hub: Any, *, checkpointer: Any = None,
                 facts: Any = None, sessions: Any = None, traces: Any = None,
                 collection: str | None = None, vocabulary: Vocabulary | None = None, web: Any = None,
                 floor: Brain | None = None) -> None:
        from core.graph import build_graph

        self.settings = settings
        self.brain = brain
        self.hub = hub
        self.facts, self.sessions, self.traces = facts, sessions, traces
        self.collection = collection or settings.mcp.collection
        self.vocabulary = vocabulary or Vocabulary()
        # A vocabulary without a revision is a hub without get_vocabulary (an upstream server): its
        # titles, or, when it names none, what its searches return (core.tools.harvest).
        titles_only = vocabulary is not None and vocabulary.revision is None
        self._vocabulary_tool = not titles_only
        self._harvesting = titles_only and not self.vocabulary.terms and hasattr(hub, "harvest")
        self._vocabulary_checked = time.monotonic() if vocabulary is not None else float("-inf")
        self.checkpointer = checkpointer
        self.web = web  # the web search client of stage K, or None (off, or no key / URL)
        self.graph = build_graph(checkpointer, settings.agent.web_search_fallback if web is not None else None,
                                 turn_floor=floor is not None)
        # the turn floor (core.nodes.turn_floor): the offline brain answers each question first, alone
        self.floor = floor
        self._floor_graph = build_graph() if floor is not None else None
        self._lock = asyncio.Lock()
        self._redact = Redactor(settings.secrets())
        self._notices_seen = 0  # hub notices already reported in a turn
        self.warming: list[threading.Thread] = []  # local models still loading (core.warmup waits)
        self._trace_saves = asyncio.Lock()
        self.writes = PendingWrites()  # the last turn's memory write, when it is still running
        self.write_after_answer = True  # False: facts are written inside the turn (bench/agent.py's "before")

    @property
    def brain_name(self) -> str:
        return getattr(self.brain, "name", "offline")

    @property
    def hub_status(self) -> str:
        return getattr(self.hub, "describe", "hub")

    @staticmethod
    def new_session_id() -> str:
        return new_id()

    async def messages(self, session_id: str) -> list:
        if self.checkpointer is None:
            return []
        snap = await self.graph.aget_state({"configurable": {"thread_id": session_id}})
        values = snap.values if snap else {}
        return list((values or {}).get("messages", []))

    async def history(self, session_id: str, max_turns: int = 1000) -> list[RecordedTurn]:
        """The session's recorded turns, oldest first, failed ones included (``error`` set): what the
        app shows on resume and the session row counts. The brains get answered turns only."""
        return turns_from_messages(await self.messages(session_id), max_turns, failed=True)

    async def settle(self) -> list[Event]:
        """Wait for the last turn's memory write; the events it reported (its MemoryWritten), or []."""
        return await self.writes.settle()

    async def run_turn(self, question: str, session_id: str | None = None, *,
                       doc_id: str | None = None) -> AsyncIterator[Event]:
        """Run one turn; yield its events. The last event is TurnFinished or TurnFailed. With
        ``doc_id`` (an ``@paper`` mention) every retrieval of the turn searches only that document."""
        from core.nodes.common import AgentContext

        session_id = session_id or new_id()
        question = self._redact.text(question)  # a pasted key never reaches the LLM or the data dir
        turn_id = new_id()
        events: list[Event] = []

        def tag(ev: Event) -> Event:
            ev.turn_id = turn_id
            events.append(ev)
            return ev

        async with self._lock, TurnLock.of(self.settings, session_id, self.checkpointer is not None) as turn_lock:
            await self.writes.settle()  # the facts the last turn learnt are in memory before this one recalls
            agent = self.settings.agent
            if self.facts is not None and self.settings.memory.enabled and self.settings.memory.recall_top_k:
                if (prefetch := getattr(self.facts, "prefetch", None)) is not None:  # optional in FactMemory
                    prefetch(question)  # the encoder starts on the question while the turn sets up
            yield tag(TurnStarted(question=question, session_id=session_id, brain=self.brain_name, hub=self.hub_status,
                                  max_retries=agent.max_retries, max_react_steps=agent.max_react_steps,
                                  max_plan_steps=agent.max_plan_steps))
            if not turn_lock.held:  # another process runs a turn in this session: wait (with a notice) or fail
                if turn_lock.busy == "wait":
                    yield tag(Notice(level="warning", message=turn_lock.waiting_message(), source="session"))
                if not await turn_lock.wait():
                    yield tag(TurnFailed(error=turn_lock.busy_message(), category="busy"))
                    return
            if self.sessions is not None:
                await self.sessions.begin_turn(session_id, question)
            started = asyncio.get_running_loop().time()  # the turn deadline also covers the vocabulary's refresh
            try:
                async with asyncio.timeout(agent.turn_deadline or None):
                    await self.refresh_vocabulary(question)
            except TimeoutError:  # a hub too slow to answer even that: the turn's own work meets the deadline next
                pass
            ctx = AgentContext(settings=self.settings, brain=self.brain, hub=self.hub, facts=self.facts,
                               collection=self.collection, session_id=session_id,
                               vocabulary=self.vocabulary, web=self.web, doc_id=doc_id,
                               after_answer=[] if self.write_after_answer and self.facts is not None else None)
            if doc_id:
                yield tag(Notice(level="info", source="scope", message=f"answered from the document {doc_id!r} only"))
            config = {"configurable": {"thread_id": session_id}, "recursion_limit": 200}
            inp = turn_input(question, turn_id, max_retries=agent.max_retries, max_react_steps=agent.max_react_steps)
            try:
                if self.floor is not None:  # inside the try: esc during it cancels the turn like any other step
                    ctx.baseline, why = await self._offline_answer(ctx, inp, session_id)
                    yield tag(Notice(level="info" if ctx.baseline else "warning", source="turn_floor",
                                     message=f"the offline brain answered first, in {ctx.baseline.seconds:.1f} s: "
                                             "the LLM's answer must reach it" if ctx.baseline else
                                             f"no offline answer to compare the LLM's with ({why}); no turn floor"))
                with budget.scope(budget.TurnBudget.of(agent)):
                    async for event in _stream(self.graph, inp, config, ctx, self.vocabulary, agent.turn_deadline,
                                                    started):
                        yield tag(event)
                notices = getattr(self.hub, "notices", [])
                for msg in notices[self._notices_seen:]:  # the first turn also gets those from opening
                    yield tag(Notice(level="warning", message=msg, source="mcp"))
                self._notices_seen = len(notices)
                yield self._answered(tag(TurnFinished(result=fold(events).to_result(now=time.time()))), ctx,
                                     session_id, question, events)
            except asyncio.CancelledError:
                failed = tag(TurnFailed(error="turn cancelled", category="cancelled"))
                await self._record_failure(config, turn_id, question, failed)
                await self._finish(turn_id, session_id, question, events, ok=False)
                raise
            except BudgetExceeded as exc:
                if exc.draft is None:
                    yield tag(TurnFailed(error=f"{exc}; no draft had been written yet", category="budget",
                                         node=_last_node(events)))
                else:
                    from core.nodes.budget_stop import deliver

                    for event in await deliver(self.graph, config, exc, turn_id, fold(events).intent):
                        yield tag(event)
                    yield self._answered(tag(TurnFinished(result=fold(events).to_result(now=time.time()))), ctx,
                                         session_id, question, events)
            except BackendUnavailable as exc:
                yield tag(TurnFailed(error=str(exc), category="backend", node=_last_node(events)))
            except ConfigError as exc:
                yield tag(TurnFailed(error=str(exc), category="config"))
            except Exception as exc:  # noqa: BLE001 - a failed turn must not take the app down
                yield tag(TurnFailed(error=f"internal error: {type(exc).__name__}: {exc}".splitlines()[0],
                                     category="internal", node=_last_node(events)))
            if isinstance(events[-1], TurnFailed):
                await self._record_failure(config, turn_id, question, events[-1])
            await self._finish(turn_id, session_id, question, events, ok=isinstance(events[-1], TurnFinished))

    def run_research(self, topic: str | None = None, session_id: str | None = None, *, clarify: bool = True,
                     answers: dict[int, str] | None = None, outline: Outline | None = None, confirm: bool = False,
                     collection: str | None = None) -> AsyncIterator[Event]:
        """Advance a deep-research session from its checkpointed stage as far as it goes without the
        user (:func:`core.research.runner.run_research`)."""
        from core.research.runner import run_research

        return run_research(self, topic, session_id, clarify=clarify, answers=answers, outline=outline,
                            confirm=confirm, collection=collection)

    async def _offline_answer(self, ctx: Any, inp: dict, session_id: str) -> tuple[Any, str]:
        """The floor brain's own answer to this turn (core.nodes.turn_floor.offline_answer), over the
        session's history, remembering nothing."""
        from dataclasses import replace

        from core.nodes.turn_floor import offline_answer

        share_vocabulary(self.floor, self.vocabulary)
        alone = replace(ctx, brain=self.floor, facts=None, web=None, after_answer=None)
        earlier = {**inp, "messages": [*await self.messages(session_id), *inp["messages"]]}
        return await offline_answer(self._floor_graph, alone, earlier, self.settings.agent.turn_deadline)

    async def refresh_vocabulary(self, question: str = "") -> None:
        """Fetch the collection's vocabulary again when the hub's revision moved (one small call,
        at most every VOCABULARY_CHECK_S: a collection another process changes is seen that soon).
        A hub without ``get_vocabulary`` whose collections name no titles (an upstream server) gets
        one from what it returns, with a search for ``question`` first (:mod:`core.tools.harvest`)."""
        if not self._vocabulary_tool and self._harvesting:
            self.vocabulary = await self.hub.harvest(question, self.collection)
            return
        now = time.monotonic()
        if not self._vocabulary_tool or now - self._vocabulary_checked < VOCABULARY_CHECK_S:
            return
        self._vocabulary_checked = now
        fresh = await _vocabulary(self.hub, self.collection, self.vocabulary.revision)
        if fresh is UNCHANGED:
            return
        if fresh is None or fresh.revision is None:  # titles only: the hub cannot say more
            self._vocabulary_tool = False
            self._harvesting = hasattr(self.hub, "harvest") and not (fresh and fresh.terms)
            if self._harvesting:
                self.vocabulary = await self.hub.harvest(question, self.collection)
                return
        if fresh is not None:
            self.vocabulary = fresh

    async def _record_failure(self, config: dict, turn_id: str, question: str, failed: Event) -> None:
        """Answer the failed turn's question in the checkpointed history with the failure's line
        (:func:`~core.memory.history.failure_message`), so the session shows what happened and holds
        no question left hanging. The question keeps its input id: one the failed run already
        checkpointed is replaced, not repeated."""
        if self.checkpointer is None or not isinstance(failed, TurnFailed):
            return
        from langchain_core.messages import HumanMessage

        record = [HumanMessage(content=question, id=f"{turn_id}-q"),
                  failure_message(turn_id, failed.error, failed.category)]
        try:
            await self.graph.aupdate_state(config, {"messages": record}, as_node="format_output")
        except Exception:  # noqa: BLE001 - the turn already failed with its own line; its question
            pass  # then stays unanswered, which the history views leave out

    def _answered(self, done: TurnFinished, ctx: Any, session_id: str, question: str,
                  events: list[Event]) -> TurnFinished:
        """Start the writes the turn left for after its answer (``ctx.after_answer``); return ``done``.
        The turn saves its trace as ever; the write saves it again with its own events in."""
        if ctx.after_answer:
            save = None
            if self.traces is not None and self.settings.tracing.enabled:
                save = functools.partial(self._save_trace, done.turn_id, session_id, question)
            self.writes.start(ctx.after_answer, done.turn_id, events, save)
        return done

    async def _save_trace(self, turn_id: str, session_id: str, question: str, events: list[Event]) -> None:
        """Save (or replace) a turn's trace; saves take turns, each with the events as they stand then,
        so the turn's own save and its write's later one cannot land in the wrong order."""
        async with self._trace_saves:
            await self.traces.save_turn(turn_id, session_id, question, list(events))

    async def _finish(self, turn_id: str, session_id: str, question: str, events: list[Event], ok: bool) -> None:
        if self.traces is not None and self.settings.tracing.enabled:
            await self._save_trace(turn_id, session_id, question, events)
        if self.checkpointer is not None:  # keep the latest checkpoint (it holds the whole history); the
            await aprune_thread(self.checkpointer, session_id)  # session row counts its turns, failed turn or not
        if self.sessions is not None and (ok or self.checkpointer is not None):
            turns = len(await self.history(session_id, 1 << 30)) if self.checkpointer is not None else None
            await self.sessions.end_turn(session_id, turns)


async def _stream(graph: Any, inp: dict, config: dict, ctx: Any, vocab: Vocabulary,
                  deadline_s: float | None = None, started: float | None = None) -> AsyncIterator[Event]:
    """The events the nodes emit, from every (sub)graph, in order, within ``deadline_s`` seconds.

    Past the deadline the graph is cancelled where it stands and BackendUnavailable names the
    limit (``agent.turn_deadline``), counted from ``started`` (the turn's set-up, e.g. a vocabulary
    harvest, spends from it) or from now. The deadline covers only the turn's own work: the time the
    consumer spends between events (rendering) is not the turn's to answer for, and no
    cancellation can land there.
    """
    # durability="exit": one checkpoint write per turn instead of one per step; a turn that fails
    # leaves the previous turns' history intact.
    extra = {"durability": "exit"} if graph.checkpointer is not None else {}
    now = asyncio.get_running_loop().time()
    until = (now if started is None else started) + deadline_s if deadline_s else None
    share_vocabulary(ctx.brain, vocab)  # the rules match names only against the vocabulary they are handed
    stream = graph.astream(inp, config, context=ctx, stream_mode="custom", subgraphs=True, **extra)
    try:
        while True:
            limit = asyncio.timeout_at(until)
            try:
                async with limit:
                    _ns, event = await anext(stream)
            except StopAsyncIteration:
                return
            except TimeoutError:
                if not limit.expired():
                    raise
                raise BackendUnavailable(
                    f"the turn took longer than agent.turn_deadline ({deadline_s:g} s); stopped") from None
            yield event
    finally:
        await stream.aclose()


def _last_node(events: list[Event]) -> str | None:
    for ev in reversed(events):
        if isinstance(ev, (NodeStarted, NodeFinished)):
            return ev.node
    return None


@asynccontextmanager
async def open_agent(settings: Settings, *, brain: Brain | None = None, hub: Any = None,
                     collection: str | None = None, persist: bool = True,
                     pace: float = 0.0, floor: Brain | None = None) -> AsyncIterator[Agent]:
    """Open everything a session needs; close it all on exit.

    ``persist=False`` keeps the run in memory (no checkpoints, facts, sessions or traces), which
    benchmarks and some tests use. ``pace``: seconds between the sentences an offline answer
    streams (the app's ``tui.answer_pace``; commands answer at once). ``floor``: the brain whose own
    answer an LLM turn must reach (the turn floor); by default the offline set-up when the configured
    brain uses an LLM and ``llm.turn_floor`` is on. A caller that passes ``brain`` passes its floor
    too, or has none.
    """
    from core.tools.hub_client import HubClient

    async with AsyncExitStack() as stack:
        if brain is None:
            from core.brains.factory import build_brain, build_floor

            await check_llm_endpoint(settings)
            brain = build_brain(settings, pace=pace)
            floor = floor or build_floor(settings, brain)
        if hasattr(brain, "warm"):
            brain.warm()  # local models load while the hub starts
        # the encoder loads while the hub starts; a failed start waits for it, since a process that
        # exits while a thread is still loading torch aborts instead of exiting with its own code
        warm = _warm_encoder() if persist and settings.memory.enabled else None
        try:
            checkpointer = facts = sessions = traces = None
            if persist:  # first: a corrupt store is reported before the hub is started for nothing
                checkpointer, facts, sessions, traces = await _open_stores(settings, stack)
            if hub is None:
                hub = await stack.enter_async_context(HubClient(settings.mcp))
            vocabulary = await _vocabulary(hub, collection or settings.mcp.collection, None)
            vocabulary = vocabulary if isinstance(vocabulary, Vocabulary) else None
        except BaseException:
            if warm is not None:
                await asyncio.to_thread(warm.join, 120)
            raise
        from core.tools.web_search import create_web_search_client

        agent = Agent(settings, brain, hub, checkpointer=checkpointer, facts=facts, sessions=sessions,
                      traces=traces, collection=collection, vocabulary=vocabulary,
                      web=create_web_search_client(settings), floor=floor)
        agent.warming = [warm] if warm is not None else []
        try:
            yield agent
        finally:  # quitting right after an answer loses nothing: its facts are written before the stores close
            await agent.settle()


async def check_llm_endpoint(settings: Settings, timeout: float = 5.0) -> None:
    """Fail fast, with one line, when a configured OpenAI-compatible endpoint refuses connections."""
    from urllib.parse import urlsplit

    if settings.llm.resolved_provider() != "openai" or not settings.llm.base_url:
        return
    url = urlsplit(settings.llm.base_url)
    if not url.hostname:
        raise ConfigError(f"llm.base_url: not a URL: {settings.llm.base_url!r}")
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        _, writer = await asyncio.wait_for(asyncio.open_connection(url.hostname, port), timeout)
    except (TimeoutError, OSError) as exc:
        reason = "timed out" if isinstance(exc, asyncio.TimeoutError) else (exc.strerror or str(exc))
        raise LLMUnavailable(f"LLM endpoint {settings.llm.base_url} unreachable: {reason}") from None
    writer.close()


def _warm_encoder() -> threading.Thread:
    from core.embeddings import embed_one

    thread = threading.Thread(target=lambda: embed_one("warm up"), name="encoder-warm", daemon=True)
    thread.start()
    return thread


async def _open_stores(settings: Settings, stack: AsyncExitStack) -> tuple[Any, Any, Any, Any]:
    from core.memory.checkpoints import open_checkpointer
    from core.stores import open_stores

    stores = open_stores(settings)
    checkpointer = await stack.enter_async_context(open_checkpointer(stores.checkpoints, settings.secrets()))
    facts = stores.facts if settings.memory.enabled else None
    return checkpointer, facts, stores.sessions, stores.traces


UNCHANGED = Vocabulary(revision=-1)


async def _vocabulary(hub: Any, collection: str, since: int | None) -> Vocabulary | None:
    """The collection's vocabulary from the hub; UNCHANGED when its revision is still ``since``.

    A hub without ``get_vocabulary`` (an upstream server) gives a vocabulary of its document titles,
    and None afterwards, so the agent stops asking.
    """
    from core.tools.hub_client import ToolError

    if not hasattr(hub, "call"):  # an in-process retriever (benchmarks)
        return None
    args = {"collection": collection} | ({"since_revision": since} if since is not None else {})
    try:
        res = await hub.call("get_vocabulary", args)  # waits out a fresh index while the hub says it indexes
    except ToolError:
        return await _title_vocabulary(hub, collection) if since is None else None
    data = res.structured if isinstance(res.structured, dict) else {}
    if data.get("unchanged"):
        return UNCHANGED
    return Vocabulary.from_dict(data)


async def _title_vocabulary(hub: Any, collection: str) -> Vocabulary:
    from core.tools.hub_client import ToolError

    try:
        res = await hub.list_collections()
    except ToolError:
        return Vocabulary()
    data = res.structured or {}
    titles: list[str] = []
    for col in data.get("collections", []) if isinstance(data, dict) else []:
        if isinstance(col, dict) and col.get("name") == collection:
            titles += [d.get("title", "") for d in col.get("documents", []) if isinstance(d, dict)]
    return Vocabulary.from_titles(titles)
