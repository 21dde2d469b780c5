"""The checkpoint database grows linearly with a session's turns, and the session row counts the
turns the checkpoints hold (real agent: offline brain, the bundled hub as an MCP stdio server)."""

from __future__ import annotations

import sqlite3

from core.agent import open_agent
from core.brains.offline.brain import OfflineBrain
from core.config import load_settings
from core.events import TurnFinished
from tests.support.ask_proc import write_settings

QUESTIONS = ["What rank does LoRA use by default?", "What is QLoRA?", "What does DPO optimize?",
             "What is chain-of-thought prompting?"]
N = 8


async def _turns(agent, session: str, n: int, start: int = 0) -> None:
    for i in range(start, start + n):
        events = [ev async for ev in agent.run_turn(f"{QUESTIONS[i % len(QUESTIONS)]} ({i})", session)]
        assert isinstance(events[-1], TurnFinished), events[-1]


def _stored(db) -> tuple[int, int]:
    """(bytes of checkpoint data kept, checkpoints kept) for thread S."""
    with sqlite3.connect(db) as conn:
        size, rows = conn.execute("SELECT COALESCE(SUM(LENGTH(checkpoint) + LENGTH(metadata)), 0), COUNT(*) "
                                  "FROM checkpoints WHERE thread_id = 'S'").fetchone()
        size += conn.execute("SELECT COALESCE(SUM(LENGTH(value)), 0) FROM writes WHERE thread_id = 'S'").fetchone()[0]
    return size, rows


async def test_checkpoints_grow_linearly_with_turns(home, hub_db):
    s = load_settings(write_settings(home / "settings.yaml", hub_db), use_user_file=False)
    db = home / "checkpoints.sqlite3"
    async with open_agent(s, brain=OfflineBrain(s)) as agent:
        await _turns(agent, "S", N)
        after_n, rows_n = _stored(db)
        await _turns(agent, "S", N, start=N)
        after_2n, rows_2n = _stored(db)
        history = await agent.history("S")
    assert len(history) == 2 * N and history[0].question.endswith("(0)")  # pruning kept every turn
    assert rows_n == rows_2n == 1  # one checkpoint per session: it holds the whole history
    # a fixed part (the turn's own state) plus the messages: twice the turns, less than twice the bytes
    # (every checkpoint kept, it was more than twice: the N more turns each stored the longer history)
    assert after_2n < 2 * after_n, (after_n, after_2n)


async def test_the_session_row_counts_the_turns_the_checkpoints_hold(home, hub_db):
    s = load_settings(write_settings(home / "settings.yaml", hub_db), use_user_file=False)
    async with open_agent(s, brain=OfflineBrain(s)) as agent:
        await _turns(agent, "S", 2)
        for _ in range(3):  # a row that drifted (turns lost to a race before the turn lock existed)
            await agent.sessions.end_turn("S")
        assert agent.sessions.get("S").turn_count == 5
        await _turns(agent, "S", 1, start=2)
        assert agent.sessions.get("S").turn_count == len(await agent.history("S")) == 3
