"""A knowledge-hub process killed mid-session: the next turn reconnects once and says so."""

from __future__ import annotations

import asyncio
import os
import signal

import psutil

from core.agent import open_agent
from tests.integration.helpers import Turn
from tests.integration.test_graph_llm_brain import STUB, llm_settings


def hub_children() -> list[psutil.Process]:
    return [p for p in psutil.Process().children(recursive=True) if str(STUB) in " ".join(p.cmdline())]


async def scenario() -> tuple[Turn, Turn, int]:
    from core.brains.offline.brain import OfflineBrain

    s = llm_settings()
    turns = []
    async with open_agent(s, brain=OfflineBrain(s), persist=False) as agent:
        for i, q in enumerate(["What is LoRA?", "What is QLoRA?"]):
            if i == 1:
                (victim,) = hub_children()
                os.kill(victim.pid, signal.SIGKILL)
                victim.wait(10)
            t = Turn()
            async for ev in agent.run_turn(q, "k"):
                t.events.append(ev)
            turns.append(t)
        alive = len(hub_children())
    return turns[0], turns[1], alive


def test_turn_after_hub_death_reconnects_and_reports_it():
    first, second, alive = asyncio.run(scenario())
    assert first.result.sources and second.result.sources
    assert any("reconnected" in n.message for n in second.of("notice"))
    assert any("reconnected" in n for n in second.result.notices)
    assert alive == 1  # exactly one fresh server, no leak
