"""Chat sessions and deep-research sessions as one list, for the sidebar, F2 and ``paperpilot sessions``.

A deep-research run keeps its own checkpoint thread (``research:<id>``, :mod:`core.research.runner`) and
no row in the sessions table; the runner records each run as a turn whose question is ``research: TOPIC``
in the trace store. So research sessions are found there, and their review is the last recorded
``ReviewFinished`` event of that session.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

TRACES_READ = 2000  # the newest recorded turns read to find research runs (a read per refresh stays small)
RESEARCH_PREFIX = "research: "  # how a research run's turn is recorded (core.research.runner)


@dataclass(frozen=True)
class Conversation:
    """One row: a session id, its title, when it was last used and whether it is a research run."""

    id: str
    title: str
    updated: float
    research: bool = False
    created: float = 0.0
    turn_count: int = 0  # chat turns; for a research run, its recorded runs


def conversations(sessions: list[Any], traces: list[Any], limit: int | None = None) -> list[Conversation]:
    """Chat sessions and research sessions (from their recorded turns), newest first; a session
    that holds both is one row, marked research."""
    rows = {s.id: Conversation(s.id, s.title, s.updated, created=s.created, turn_count=s.turn_count)
            for s in sessions}
    for t in traces:
        if not t.session_id or not t.question.startswith(RESEARCH_PREFIX):
            continue
        known = rows.get(t.session_id)
        title = known.title if known else t.question[len(RESEARCH_PREFIX):]
        updated = max(known.updated if known else 0.0, t.finished or t.started)
        created = min(known.created or t.started, t.started) if known else t.started
        runs = (known.turn_count if known and known.research else 0) + 1
        rows[t.session_id] = Conversation(t.session_id, title, updated, research=True, created=created,
                                          turn_count=runs)
    ordered = sorted(rows.values(), key=lambda c: (-c.updated, c.id))
    return ordered if limit is None else ordered[:limit]


def research_review(traces: Any, session_id: str) -> tuple[str, str | None] | None:
    """(topic, the review's Markdown or None while the run waits) of a research session; None if it is not one."""
    from core.events import ReviewFinished

    runs = [t for t in traces.list(session_id, None) if t.question.startswith(RESEARCH_PREFIX)]
    if not runs:
        return None
    topic = runs[0].question[len(RESEARCH_PREFIX):]
    for run in runs:  # newest first
        detail = traces.get(run.trace_id)
        reviews = [e for e in (detail.events if detail else []) if isinstance(e, ReviewFinished)]
        if reviews:
            return topic, reviews[-1].review.markdown
    return topic, None
