"""Warm-up: wait until a first question will be answered quickly, reporting progress.

An open agent can already take a question, but the first one would wait for whatever is still
loading: the local router, the fact-memory encoder in this process, and the hub's index (the
bundled notes are embedded on a fresh data dir) and its encoder. :func:`warm_up` waits for all of
it and reports each phase, so the app can say "ready" only when that is true.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

POLL_S = 0.3

# report(phase, done, total): phase is a short phrase; done/total count chunks while embedding
Report = Callable[[str, int, int], None]


async def warm_up(agent: Any, report: Report) -> None:
    """Return once the agent's brain, encoder and hub are warm (or could not be; a failure is
    left for the first turn to report in its own words)."""
    await _hub(getattr(agent, "hub", None), report)
    ready = getattr(getattr(agent, "brain", None), "ready", None)
    if ready is not None:
        report("loading the router", 0, 0)
        await ready()
    for thread in getattr(agent, "warming", ()):
        report("loading the encoder", 0, 0)
        await asyncio.to_thread(thread.join, 120)


FOLLOW_S = 1.0


async def follow_indexing(agent: Any, report: Callable[[int], None]) -> None:
    """While the agent is open, report how many files a watching hub (``hub.watch``) is indexing,
    each time that changes. Returns at once for a hub that does not watch folders."""
    hub = getattr(agent, "hub", None)
    if not hasattr(hub, "call"):
        return
    last = 0
    while True:
        try:
            res = await hub.call("hub_status", {}, timeout=30)
        except Exception:  # noqa: BLE001 - an upstream hub, or one that died: the next turn reports it
            return
        status = res.structured if isinstance(res.structured, dict) else {}
        status = status.get("result", status)
        if "indexing" not in status:
            return  # this hub watches no folders
        busy = int(status.get("indexing") or 0)
        if busy != last:
            report(busy)
            last = busy
        await asyncio.sleep(FOLLOW_S)


async def _hub(hub: Any, report: Report) -> None:
    from core.tools.hub_client import ToolError

    if not hasattr(hub, "call"):  # an in-process retriever (benchmarks, tests)
        return
    while True:
        try:
            res = await hub.call("hub_status", {}, timeout=30)
        except ToolError:  # an upstream server without the tool: nothing to wait for
            return
        except Exception:  # noqa: BLE001 - a dead hub is reported by the first turn
            return
        status = res.structured if isinstance(res.structured, dict) else {}
        status = status.get("result", status)  # FastMCP wraps a dict result as {"result": ...}
        phase = status.get("phase", "ready")
        if phase in ("ready", "failed"):
            return
        if phase == "embedding":
            report("indexing the knowledge hub", int(status.get("done", 0)), int(status.get("total", 0)))
        elif phase == "indexing":
            report("reading the knowledge hub's documents", 0, 0)
        else:
            report("warming up the knowledge hub", 0, 0)
        await asyncio.sleep(POLL_S)
