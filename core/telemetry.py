"""Emit a :mod:`core.events` event from anywhere inside a running turn.

Nodes and brains call :func:`emit`; inside a graph run it goes to LangGraph's custom stream, which
``core.agent`` turns into the turn's event iterator. Outside a run it is a no-op (unless a test
installs a sink with :func:`capture`), so brains stay usable on their own.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from collections.abc import Callable, Iterator

_sink: ContextVar[Callable[[object], None] | None] = ContextVar("paperpilot_event_sink", default=None)
_collectors: ContextVar[tuple[list, ...]] = ContextVar("paperpilot_event_collectors", default=())


def emit(event: object) -> None:
    for seen in _collectors.get():
        seen.append(event)
    sink = _sink.get()
    if sink is not None:
        sink(event)
        return
    try:
        from langgraph.config import get_stream_writer

        writer = get_stream_writer()
    except (RuntimeError, ImportError):
        return
    writer(event)


@contextmanager
def capture(sink: Callable[[object], None]) -> Iterator[None]:
    """Send events to ``sink`` (tests, or code running outside a graph)."""
    token = _sink.set(sink)
    try:
        yield
    finally:
        _sink.reset(token)


@contextmanager
def collect() -> Iterator[list]:
    """Also gather, in a list, every event emitted inside the block (blocks nest; each gets its own).

    :func:`core.nodes.common.traced` uses it to summarize a node from what the node emitted.
    """
    seen: list = []
    token = _collectors.set((*_collectors.get(), seen))
    try:
        yield seen
    finally:
        _collectors.reset(token)
