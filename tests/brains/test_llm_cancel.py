"""Cancel means cancel: a cancelled turn closes its HTTP request, makes no further call, and the
user is told when the server may still be computing what was cancelled. A real ChatOpenAI talks
to a local OpenAI-compatible server in a thread (tests.support.fake_openai)."""

from __future__ import annotations

import asyncio
import time

import pytest

from core.brains.base import SynthesisRequest
from core.brains.llm import inflight
from core.brains.llm.brain import LLMBrain
from core.brains.llm.chat import build_chat_model
from core.config import Settings
from core.state import Intent, RetrievedContext
from core.telemetry import capture
from tests.support.fake_openai import FakeServer

INTENT = Intent(type="factual", confidence=1.0, entities=["LoRA"])
CTX = [RetrievedContext(content="LoRA uses rank 8 by default in our notes.", chunk_id="c1", title="LoRA")]
REQUEST = SynthesisRequest(kind="simple", question="What rank does LoRA use?", intent=INTENT, contexts=CTX)


def brain(url: str) -> LLMBrain:
    s = Settings.model_validate({"llm": {"provider": "openai", "base_url": url, "api_key": "sk-test",
                                         "retries": 2, "timeout": 30}})
    return LLMBrain(build_chat_model(s), s)


async def until(check, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out waiting"
        await asyncio.sleep(0.02)


async def test_a_cancelled_stream_is_closed_and_the_next_request_says_the_server_may_be_busy():
    with FakeServer() as server:
        server.first_chunk_delay = 1.0  # the server reads the prompt: no token yet
        b = brain(server.url)
        task = asyncio.create_task(b.synthesize(REQUEST))
        await until(lambda: server.requests and inflight.busy() == [server.url])
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert inflight.busy() == []
        await until(lambda: server.disconnects == 1)  # the server saw its client go: the stream was closed
        assert len(server.requests) == 1  # no retry, no fallback call after the cancel
        server.first_chunk_delay = 0.0
        events: list = []
        with capture(events.append):
            await b.synthesize(REQUEST)
        notes = [e.message for e in events if e.kind == "notice"]
        assert any(n.startswith(inflight.STILL_FINISHING) and "synthesis" in n for n in notes), notes
        events.clear()
        with capture(events.append):
            await b.synthesize(REQUEST)  # said once: the answered request shows the server is free
        assert not [e for e in events if e.kind == "notice"]


async def test_a_stream_cancelled_while_tokens_arrive_leaves_nothing_behind():
    with FakeServer() as server:
        server.text = "LoRA uses rank 8 by default [1]."
        server.stall_after, server.stall = 2, 1.0
        b = brain(server.url)
        tokens: list[str] = []
        task = asyncio.create_task(b.synthesize(REQUEST, tokens.append))
        await until(lambda: len(tokens) >= 2)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await until(lambda: server.disconnects == 1)
        # a llama.cpp server stops generating when a streaming client goes: no warning next time
        assert inflight.abandoned_note(server.url) is None


async def test_a_cancelled_turn_makes_no_further_call(tmp_path, monkeypatch):
    from core.agent import open_agent

    monkeypatch.setenv("PAPERPILOT_HOME", str(tmp_path / "home"))
    with FakeServer() as server:
        server.delay = 1.5  # every request takes a while: the turn is cancelled inside its first
        s = Settings.model_validate({"llm": {"provider": "openai", "base_url": server.url, "api_key": "sk-test",
                                             "retries": 2, "timeout": 30},
                                     "agent": {"router": "llm", "critic": "llm", "slots": "llm"}})
        async with open_agent(s, brain=brain(server.url), persist=False) as agent:
            async def turn() -> None:
                async for _ in agent.run_turn("What rank does LoRA use?", "cancel-1"):
                    pass

            task = asyncio.create_task(turn())
            await until(lambda: server.requests, 120)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            await asyncio.sleep(server.delay + 1.0)
        assert len(server.requests) == 1
        assert "still finishing a cancelled request" in (inflight.abandoned_note(server.url) or "")
