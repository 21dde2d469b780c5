"""The turn floor (core.nodes.turn_floor): an LLM turn whose final answer falls below the offline
brain's own answer to the question delivers the offline answer, and memorizes nothing of its own.

The chat model is scripted (the only mock: the LLM); retrieval is the bundled hub as a real MCP server
process and memory is real SQLite. The LLM routes the question to ReAct and its step searches another
paper (what a weak model's steps do), so every draft of the LLM turn, the per-draft floor's included,
is written over evidence that does not hold the answer.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from core.agent import open_agent
from core.brains.llm.brain import LLMBrain
from core.brains.offline.brain import OfflineBrain
from core.nodes.turn_floor import DELIVERED_NOTE
from tests.integration.helpers import Turn, settings
from tests.integration.test_graph_llm_brain import GOOD_CRITIC, replies
from tests.support.scripted_model import ScriptedChatModel, by_purpose

QUESTION = "How many times does LoRA reduce the trainable parameters of GPT-3 175B?"
ASTRAY = '{"thought": "look up latency", "action": "search", "query": "LoRA inference latency merged weights"}'
DPO_DRAFT = "DPO optimizes the policy directly on preference data [1]."


@pytest.fixture(autouse=True)
def private_home(tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERPILOT_HOME", str(tmp_path / "home"))


def floor_settings():
    # the ReAct searches reach agent.top_k chunks, as a factual search does: with the wider
    # agent.broad_top_k the question's own first search already holds the answer's chunk, and the
    # steering this test needs (every draft over evidence without the answer) does not happen
    return settings(router="llm", critic="llm", max_retries=0, broad_top_k=settings().agent.top_k)


async def ask(model, *, floor=True, persist=False) -> Turn:
    s = floor_settings()
    t = Turn()
    async with open_agent(s, brain=LLMBrain(model, s), floor=OfflineBrain(s) if floor else None,
                          persist=persist) as agent:
        async for ev in agent.run_turn(QUESTION, "s"):
            t.events.append(ev)
        t.events[-1:-1] = await agent.settle()
    return t


async def offline_alone() -> str:
    s = floor_settings()
    async with open_agent(s, brain=OfflineBrain(s), persist=False) as agent:
        async for ev in agent.run_turn(QUESTION, "s"):
            last = ev
    return last.result.final_answer


def floor_notes(t: Turn) -> list[str]:
    return [n.message for n in t.of("notice") if n.source == "turn_floor"]


def test_an_llm_turn_below_the_offline_answer_delivers_the_offline_answer():
    alone = asyncio.run(offline_alone())
    assert "10,000" in alone  # the offline brain answers this question from the LoRA paper
    model = ScriptedChatModel(respond=by_purpose(replies("exploratory", react=ASTRAY, synthesis=DPO_DRAFT,
                                                         critic=GOOD_CRITIC)))
    without = asyncio.run(ask(model, floor=False)).result
    assert "10,000" not in without.final_answer  # the steered turn, as it was before the turn floor

    model = ScriptedChatModel(respond=by_purpose(replies("exploratory", react=ASTRAY, synthesis=DPO_DRAFT,
                                                         critic=GOOD_CRITIC)))
    t = asyncio.run(ask(model, persist=True))
    r = t.result
    assert r.final_answer == alone
    assert any(d.doc_id and "lora" in (d.title or "").lower() for d in r.sources)
    notes = floor_notes(t)
    assert notes[0].startswith("the offline brain answered first")
    assert any(DELIVERED_NOTE in n and "direct answer lacks" in n for n in notes), notes
    written = [f for e in t.of("memory_written") for f in e.facts]
    assert not any("DPO" in f for f in written), written


def test_an_llm_turn_that_reaches_the_offline_answer_is_delivered_as_written():
    alone = asyncio.run(offline_alone())
    first = alone.split("\n\n")[0]
    model = ScriptedChatModel(respond=by_purpose(replies("factual", synthesis=first, critic=GOOD_CRITIC,
                                                         slots=json.dumps({"entities": ["LoRA"], "dimensions": [],
                                                                           "constraints": {},
                                                                           "reformulated_query": QUESTION}))))
    t = asyncio.run(ask(model))
    notes = floor_notes(t)
    assert any("delivered as written" in n for n in notes) and not any(DELIVERED_NOTE in n for n in notes), notes


class _SlowFloor(OfflineBrain):
    """An offline floor brain whose routing waits until the test cancels the turn."""

    def __init__(self, settings, entered: asyncio.Event):
        super().__init__(settings)
        self.entered = entered

    async def classify(self, *args, **kwargs):
        self.entered.set()
        await asyncio.sleep(60)
        return await super().classify(*args, **kwargs)


def test_esc_while_the_offline_answer_is_made_cancels_the_turn_like_any_step():
    async def go():
        s = floor_settings()
        entered = asyncio.Event()
        model = ScriptedChatModel(respond=by_purpose(replies("factual")))
        async with open_agent(s, brain=LLMBrain(model, s), floor=_SlowFloor(s, entered), persist=True) as agent:
            async def consume():
                async for _ in agent.run_turn(QUESTION, "s"):
                    pass

            task = asyncio.create_task(consume())
            await asyncio.wait_for(entered.wait(), 60)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            return await agent.history("s"), model.calls

    history, calls = asyncio.run(go())
    assert [(t.question, t.error) for t in history] == [(QUESTION, "turn cancelled")]
    assert calls == []  # the LLM was never asked
