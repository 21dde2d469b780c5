"""Run a research session one step further: from its checkpointed stage as far as it can go alone.

The session's state lives in the agent's checkpointer under thread ``research:<session id>`` (apart
from the chat turns of the same id). A call reads where it stood, emits
:class:`~core.events.ResearchStarted`, then starts or resumes the research graph
(``Command(resume=...)`` answers the interrupt it is waiting at) and yields the nodes' events. It
ends with ``ResearchWaiting`` (the graph is interrupted for answers or the outline),
``ReviewFinished``, or ``TurnFailed`` (one line). A call that brings nothing new to a waiting session
shows again what it waits on. Each call is stored as a trace (its id is the events' ``turn_id``),
so ``paperpilot traces``/``replay`` show it like a turn.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

from core.config import ConfigError
from core.errors import BackendUnavailable
from core.events import (
    ClarificationAsked, Event, OutlineProposed, ResearchStarted, ResearchWaiting, ReviewFinished, TurnFailed,
)
from core.memory.turnlock import TurnLock
from core.research.types import ClarifyingQuestion, Outline, ResearchReview

DEADLINE_FACTOR = 4  # a research run may take this many turn deadlines (agent.turn_deadline)


def thread_of(session_id: str) -> str:
    return f"research:{session_id}"


def graph_of(agent: Any) -> Any:
    """The agent's compiled research graph (built once; in memory when the agent persists nothing)."""
    graph = getattr(agent, "_research_graph", None)
    if graph is None:
        from core.research.graph import build_research_graph

        saver = agent.checkpointer
        if saver is None:
            from langgraph.checkpoint.memory import InMemorySaver

            saver = InMemorySaver()
        graph = agent._research_graph = build_research_graph(saver)
    return graph


def where(snapshot: Any) -> tuple[str, str | None]:
    """(stage, what it waits for: "answers" | "outline" | None) of a checkpointed session."""
    values = (snapshot.values if snapshot else None) or {}
    waiting = None
    for task in getattr(snapshot, "tasks", ()) or ():
        for intr in getattr(task, "interrupts", ()) or ():
            value = getattr(intr, "value", None)
            if isinstance(value, dict) and value.get("needs") in ("answers", "outline"):
                waiting = value["needs"]
    stage = values.get("stage") or "initial"
    if values.get("review") and not (snapshot.next if snapshot else None):
        stage = "review"
    return stage, waiting


async def run_research(agent: Any, topic: str | None = None, session_id: str | None = None, *,
                       clarify: bool = True, answers: dict[int, str] | None = None,
                       outline: Outline | None = None, confirm: bool = False,
                       collection: str | None = None) -> AsyncIterator[Event]:
    from langgraph.types import Command

    from core.agent import _stream
    from core.research.graph import ResearchContext

    session_id = session_id or uuid.uuid4().hex[:12]
    trace_id = uuid.uuid4().hex[:12]
    events: list[Event] = []

    def tag(ev: Event) -> Event:
        ev.turn_id = trace_id
        events.append(ev)
        return ev

    graph = graph_of(agent)
    config = {"configurable": {"thread_id": thread_of(session_id)}, "recursion_limit": 50}
    async with agent._lock, TurnLock.of(agent.settings, thread_of(session_id),
                                         agent.checkpointer is not None) as lock:
        snap = await graph.aget_state(config)
        values = (snap.values if snap else None) or {}
        stage, waiting = where(snap)
        title = values.get("topic") or (topic or "").strip()
        yield tag(ResearchStarted(topic=title, session_id=session_id, brain=agent.brain_name, stage=stage))
        if not lock.held and not await lock.wait():
            yield tag(TurnFailed(error=lock.busy_message(), category="busy"))
            return
        inp: Any = None
        if not values:
            if not title:
                yield tag(TurnFailed(error=f"research session {session_id} does not exist; give a topic to start it",
                                     category="config"))
                await _save(agent, trace_id, session_id, title, events)
                return
            inp = {"topic": agent._redact.text(title), "collection": collection or agent.collection,
                   "clarify": clarify and answers is None, "auto_confirm": confirm, "stage": "initial",
                   "answers": _answers(answers), "edit": outline.model_dump() if outline else None}
        elif waiting == "answers" and (answers is not None or outline is not None or not clarify):
            inp = Command(resume={"answers": _answers(answers) or {}, "confirm": confirm,
                                  "edit": outline.model_dump() if outline else None})
        elif waiting == "outline" and (outline is not None or confirm):
            inp = Command(resume={"outline": outline.model_dump() if outline else None})
        ctx = ResearchContext(settings=agent.settings, brain=agent.brain, hub=agent.hub,
                              collection=values.get("collection") or collection or agent.collection,
                              vocabulary=agent.vocabulary)
        try:
            unfinished = bool(values) and waiting is None and stage != "review" and bool(snap.next)
            if inp is not None or unfinished:  # unfinished: an earlier call failed mid-way; go on from there
                await agent.refresh_vocabulary()
                ctx.vocabulary = agent.vocabulary
                deadline = (agent.settings.agent.turn_deadline or 0) * DEADLINE_FACTOR or None
                async for event in _stream(graph, inp, config, ctx, agent.vocabulary, deadline):
                    yield tag(event)
                snap = await graph.aget_state(config)
                stage, waiting = where(snap)
            else:
                for event in _again(snap.values, waiting):  # nothing new: show what it waits on / its review
                    yield tag(event)
            if waiting is not None:
                yield tag(ResearchWaiting(stage=stage, needs=waiting))
            elif not any(isinstance(e, ReviewFinished) for e in events):
                yield tag(TurnFailed(error="the research run stopped without a review", category="internal"))
        except BackendUnavailable as exc:
            yield tag(TurnFailed(error=str(exc), category="backend"))
        except ConfigError as exc:
            yield tag(TurnFailed(error=str(exc), category="config"))
        except Exception as exc:  # noqa: BLE001 - a failed run must not take the app down
            yield tag(TurnFailed(error=f"internal error: {type(exc).__name__}: {exc}".splitlines()[0],
                                 category="internal"))
        await _save(agent, trace_id, session_id, title, events)


def _answers(answers: dict | None) -> dict[str, str] | None:
    return None if answers is None else {str(k): str(v) for k, v in answers.items()}


def _again(values: dict, waiting: str | None) -> list[Event]:
    """The events that show a waiting or finished session again, from its checkpoint."""
    if waiting == "answers":
        return [ClarificationAsked(questions=[ClarifyingQuestion.model_validate(q) for q in values["questions"]])]
    if waiting == "outline":
        return [OutlineProposed(outline=Outline.model_validate(values["proposed"]))]
    if values.get("review"):
        return [ReviewFinished(review=ResearchReview.model_validate(values["review"]))]
    return []


async def _save(agent: Any, trace_id: str, session_id: str, topic: str, events: list[Event]) -> None:
    if agent.traces is not None and agent.settings.tracing.enabled:
        await agent.traces.save_turn(trace_id, session_id, f"research: {topic}", events)
