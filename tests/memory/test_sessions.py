"""Sessions table plus the real LangGraph SQLite checkpointer (a tiny graph that appends messages)."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages

from core.memory.checkpoints import open_checkpointer, read_messages, thread_exists
from core.memory.history import turns_from_messages
from core.memory.sessions import SessionNotFound, SessionStore


class S(TypedDict):
    messages: Annotated[list, add_messages]
    turns: Annotated[int, operator.add]


async def _two_turns(ckpt, thread_id: str) -> None:
    """Run a real compiled graph twice on one thread, as the agent does (Human in, AI out)."""
    def answer(state: S) -> dict:
        q = state["messages"][-1].content
        return {"messages": [AIMessage(content=f"Answer to: {q}")], "turns": 1}

    g = StateGraph(S)
    g.add_node("answer", answer)
    g.add_edge(START, "answer")
    g.add_edge("answer", END)
    async with open_checkpointer(ckpt) as saver:
        graph = g.compile(checkpointer=saver)
        cfg = {"configurable": {"thread_id": thread_id}}
        await graph.ainvoke({"messages": [HumanMessage("What is LoRA?")], "turns": 0}, cfg)
        await graph.ainvoke({"messages": [HumanMessage("And its memory cost?")], "turns": 0}, cfg)


async def test_turns_create_title_and_count(tmp_path):
    s = SessionStore(tmp_path / "state.sqlite3")
    long_q = "What is LoRA and why does it " + "really " * 20 + "work?"
    first = await s.begin_turn("s1", long_q)
    assert first.turn_count == 0 and len(first.title) <= 60 and first.title.startswith("What is LoRA")
    await s.end_turn("s1")
    await s.begin_turn("s1", "And its memory cost?")  # title stays the first question's
    done = await s.end_turn("s1")
    assert done.turn_count == 2 and done.title == first.title and done.updated >= first.updated
    await s.begin_turn("s2", "Compare BERT and GPT-2")
    assert [x.id for x in s.list()] == ["s2", "s1"]
    assert s.rename("s1", "  LoRA   chat ").title == "LoRA chat"
    with pytest.raises(SessionNotFound):
        s.rename("nope", "x")
    assert s.get("nope") is None
    s.close()


async def test_delete_removes_checkpoints_and_traces(tmp_path):
    from core.events import TurnStarted
    from core.tracing.store import TraceStore

    state, ckpt = tmp_path / "state.sqlite3", tmp_path / "checkpoints.sqlite3"
    sessions, traces = SessionStore(state), TraceStore(state)
    for sid in ("keep", "gone"):
        await sessions.begin_turn(sid, "What is LoRA?")
        await _two_turns(ckpt, sid)
        await traces.save_turn(f"t-{sid}", sid, "What is LoRA?", [TurnStarted(question="What is LoRA?", session_id=sid)])
    msgs = await read_messages(ckpt, "gone")
    assert [type(m).__name__ for m in msgs] == ["HumanMessage", "AIMessage"] * 2
    assert turns_from_messages(msgs)[-1].question == "And its memory cost?"

    assert sessions.delete("gone", ckpt) is True
    assert await read_messages(ckpt, "gone") == [] and not await thread_exists(ckpt, "gone")
    assert sessions.get("gone") is None and traces.get("t-gone") is None
    assert len(await read_messages(ckpt, "keep")) == 4 and traces.get("t-keep") is not None

    assert await sessions.adelete("keep", ckpt) is True
    assert not await thread_exists(ckpt, "keep") and sessions.list() == []
    assert sessions.delete("never-existed", ckpt) is False


async def test_read_messages_without_checkpoint_db(tmp_path):
    missing = tmp_path / "none.sqlite3"
    assert await read_messages(missing, "s1") == []
    assert not missing.exists()  # reading never creates the database


def test_show_counts_the_turns_it_shows(home, capsys):
    """A row that counts turns a race lost (before the turn lock) does not contradict the messages."""
    import asyncio
    import json

    from tests.support.cli import cli

    sessions = SessionStore(home / "paperpilot.sqlite3")
    sessions.begin_turn_sync("s1", "What is LoRA?")
    for _ in range(5):
        sessions.end_turn_sync("s1")
    sessions.close()
    asyncio.run(_two_turns(home / "checkpoints.sqlite3", "s1"))
    code, out, _ = cli(capsys, "sessions", "show", "s1", "--json")
    shown = json.loads(out)
    assert code == 0 and shown["turn_count"] == 2 and len(shown["messages"]) == 4
