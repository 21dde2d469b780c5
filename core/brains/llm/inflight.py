"""LLM requests in flight, per endpoint, and the ones a cancelled turn left behind.

Cancelling a turn (esc in the app) cancels the task that awaits the request: the HTTP connection
is closed and no further call of the turn is made. A server may still compute what it was asked:
llama.cpp servers stop a stream whose client went away only between tokens, and finish a
non-streamed request or a prompt they are still reading. On a one-slot server the next question
then waits behind that work. This module remembers such a request so the user is told:

- at cancel time, :func:`busy` names the endpoints that had a request open;
- at the next request to that endpoint, :func:`abandoned_note` says (once) that the server may
  still be finishing the cancelled one (forgotten once a later request to it is answered, or after
  the cancelled request's own timeout).

Stdlib only: the app asks :func:`busy` when esc is pressed.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

STILL_FINISHING = "the server is still finishing a cancelled request"

_open: Counter[str] = Counter()


@dataclass(frozen=True)
class Abandoned:
    purpose: str
    at: float  # time.monotonic() of the cancellation
    horizon: float  # seconds after which the server has surely given up (the request's timeout)


_abandoned: dict[str, Abandoned] = {}


def busy() -> list[str]:
    """The endpoints with a request open now."""
    return sorted(url for url, n in _open.items() if n > 0)


def abandoned_note(base_url: str) -> str | None:
    """A line for the user when a cancelled request may still occupy ``base_url``, else None."""
    left = _abandoned.pop(base_url, None)  # said once
    if left is None:
        return None
    ago = time.monotonic() - left.at
    if ago > left.horizon:
        return None
    return (f"{STILL_FINISHING} ({left.purpose}, cancelled {ago:.0f} s ago at {base_url}); "
            f"this request may wait behind it")


class Progress:
    """What a streamed request has received so far."""

    def __init__(self) -> None:
        self.streaming = False  # a chunk arrived: the server is generating, and stops when the client goes
        self.chunks = 0


@asynccontextmanager
async def tracked(base_url: str, purpose: str, timeout: float) -> AsyncIterator[Progress]:
    """Count one request as open for its duration. Cancelled before the server finished (nothing
    streamed yet, or a non-streamed call), it is remembered as abandoned; answered, it clears any
    earlier abandoned request (the server is free again)."""
    progress = Progress()
    _open[base_url] += 1
    try:
        yield progress
    except asyncio.CancelledError:
        if not progress.streaming:  # a stream that was sending tokens stops when its client goes away
            _abandoned[base_url] = Abandoned(purpose, time.monotonic(), timeout)
        raise
    else:
        _abandoned.pop(base_url, None)
    finally:
        _open[base_url] -= 1
        if _open[base_url] <= 0:
            del _open[base_url]
