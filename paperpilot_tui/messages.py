"""Typed messages: the only way background work talks to the UI.

The session's workers (:mod:`paperpilot_tui.session`: the agent, the replay player, store calls)
post these; screens and panes react with ``@on``. ``AgentEvent`` wraps one :mod:`core.events`
object unchanged, so live turns and replays go through exactly the same handlers (``core.events`` is light: no LangGraph). Turn messages
carry the ``run`` they belong to, so a screen can drop what a cancelled run had already queued.
"""

from __future__ import annotations


from textual.message import Message

from core.events import Event


class AgentEvent(Message):
    """One event of a turn (live or replayed) of run number ``run``."""

    def __init__(self, event: Event, run: int = 0, replay: bool = False) -> None:
        super().__init__()
        self.event, self.run, self.replay = event, run, replay


class AgentReady(Message):
    """The agent (brain, hub session, stores) is open."""

    def __init__(self, brain: str, hub: str, collection: str) -> None:
        super().__init__()
        self.brain, self.hub, self.collection = brain, hub, collection


class AgentWarming(Message):
    """The open agent is still warming up (:mod:`core.warmup`): ``phase``, and ``done`` of ``total``
    chunks while the hub embeds its documents."""

    def __init__(self, phase: str, done: int = 0, total: int = 0) -> None:
        super().__init__()
        self.phase, self.done, self.total = phase, done, total


class HubIndexing(Message):
    """A watching hub is indexing ``files`` changed files (0: done)."""

    def __init__(self, files: int) -> None:
        super().__init__()
        self.files = files


class LastSession(Message):
    """``tui.resume: last`` (``paperpilot --continue``): the session to reopen, or None when the
    session store has none yet (the app then says it starts a new one)."""

    def __init__(self, session_id: str | None) -> None:
        super().__init__()
        self.session_id = session_id


class AgentWarm(Message):
    """Warm-up finished: a question now gets a quick answer."""


class AgentUnavailable(Message):
    """The agent could not be opened; ``error`` is one user-facing line, ``part`` what failed:
    ``brain`` (the LLM endpoint), ``hub`` (the MCP server) or ``agent`` (anything else)."""

    def __init__(self, error: str, part: str = "agent") -> None:
        super().__init__()
        self.error, self.part = error, part


class HistoryLoaded(Message):
    """The previous turns of a session: list of (question, answer), and the last turn's trace (so its
    sources, trace steps and graph come back too). ``restored``: shown again after
    a replay (not a resume); ``then_ask``: a question to send once they are shown; ``scopes``: the
    document an @paper mention scoped each question to (:mod:`paperpilot_tui.session_scopes`)."""

    def __init__(self, session_id: str, turns: list[tuple[str, str]], *, restored: bool = False,
                 then_ask: str | None = None, last_events: list[Event] | None = None,
                 scopes: dict[str, str] | None = None) -> None:
        super().__init__()
        self.session_id, self.turns = session_id, turns
        self.restored, self.then_ask = restored, then_ask
        self.last_events = last_events or []  # the last turn's recorded events, when the trace store has them
        self.scopes = scopes or {}


class TurnEnded(Message):
    """The worker of run ``run`` (a turn or a replay) stopped: finished, failed or cancelled."""

    def __init__(self, run: int = 0) -> None:
        super().__init__()
        self.run = run


class ReplayState(Message):
    """Replay progress: playing/paused, speed, position."""

    def __init__(self, trace_id: str, paused: bool, speed: float, position: int, total: int,
                 done: bool = False, run: int = 0) -> None:
        super().__init__()
        self.run = run
        self.trace_id, self.paused, self.speed = trace_id, paused, speed
        self.position, self.total, self.done = position, total, done


class StoresReady(Message):
    """The fact, session and trace stores are open."""
