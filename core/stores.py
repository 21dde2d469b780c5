"""The one place that opens the persistent stores: facts, sessions and traces on the state database.

The agent, the app and the CLI all open them through :func:`open_stores`, so every store gets the
same paths and the configured secrets (session titles are scrubbed too): a fact typed in the memory browser, added with
``paperpilot memory add`` or memorized by the agent is scrubbed of the API key alike.
Each store opens on first use, so ``paperpilot memory list`` never imports the trace store.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.config import Settings
    from core.memory.facts import FactStore
    from core.memory.sessions import SessionStore
    from core.tracing.store import TraceStore


class Stores:
    """The fact, session and trace stores of one data directory (each opened when first used)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.state_db = settings.paths.file("state_db")

    @property
    def checkpoints(self) -> Path:
        """The LangGraph checkpoint database (opened, async, by the agent; sessions delete from it)."""
        return self.settings.paths.file("checkpoints_db")

    @cached_property
    def facts(self) -> FactStore:
        from core.memory.facts import FactStore

        return FactStore(self.state_db, self.settings.memory, secrets=self.settings.secrets(),
                         limits=self.settings.limits)

    @cached_property
    def sessions(self) -> SessionStore:
        from core.memory.sessions import SessionStore

        return SessionStore(self.state_db, self.settings.secrets())

    @cached_property
    def traces(self) -> TraceStore:
        from core.tracing.store import TraceStore

        return TraceStore(self.state_db, self.settings.secrets())

    def open_all(self) -> Stores:
        """Open every store now (the app does this in a worker thread, off the UI)."""
        _ = self.facts, self.sessions, self.traces
        return self

    def close(self) -> None:
        for name in ("facts", "sessions", "traces"):
            store = self.__dict__.get(name)
            if store is not None:
                store.close()


def open_stores(settings: Settings) -> Stores:
    """The stores for ``settings`` (paths and secrets from the settings, nothing else)."""
    return Stores(settings)
