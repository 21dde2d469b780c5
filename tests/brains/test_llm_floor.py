"""The floor an LLM draft must reach (core.brains.llm.floor): the offline draft of the same evidence.

A real ChatOpenAI talks to a local OpenAI-compatible server (tests.support.fake_openai, the model
being the edge that cannot run here); the offline brain and its rule critic are the real ones.
"""

from __future__ import annotations

import pytest

from core.brains.base import SynthesisRequest
from core.brains.llm.brain import LLMBrain
from core.brains.llm.chat import build_chat_model
from core.brains.llm.floor import floor_problems
from core.brains.offline.brain import OfflineBrain
from core.config import Settings
from core.state import Intent, RetrievedContext
from core.telemetry import capture
from tests.support.fake_openai import FakeServer
from training.eval_qa_run import SYNTHESIS_NOTE
from tests.support.vocab import bundled_vocabulary

VOCAB = bundled_vocabulary()  # the bundled collection's names, as a turn over it has them

INTENT = Intent(type="factual", confidence=1.0, entities=["LoRA"], reformulated_query="LoRA default rank")
CTX = [RetrievedContext(content="LoRA uses a rank of 8 by default. The adapters are merged after training.",
                        chunk_id="c1", doc_id="lora", title="LoRA: Low-Rank Adaptation")]
REQUEST = SynthesisRequest(kind="simple", question="What rank does LoRA use by default?", intent=INTENT, contexts=CTX)


def brain(url: str) -> LLMBrain:
    s = Settings.model_validate({"llm": {"provider": "openai", "base_url": url, "api_key": "sk-test",
                                         "retries": 0, "timeout": 10}})
    return LLMBrain(build_chat_model(s), s)


@pytest.mark.parametrize("reply, why", [
    ("LoRA uses a rank of 64 by default [1].", "not in their sources"),  # a wrong number, cited
    ("The knowledge base holds no evidence to answer this question.", "declines although"),
    ("LoRA uses a rank of 8 by default.", "cites no evidence"),
    ("LoRA uses a rank of 8 by default [4].", "cites [4], past the 1 sources"),
    ("The adapters are merged after training [1].", "lacks 8"),  # true, cited, but not the answer
])
async def test_a_draft_below_the_offline_draft_is_replaced_and_the_trace_says_so(reply, why):
    offline = OfflineBrain(Settings(), vocabulary=VOCAB).compose(REQUEST)
    with FakeServer() as server:
        server.text = reply
        events: list = []
        with capture(events.append):
            answer = await brain(server.url).synthesize(REQUEST)
    assert answer == offline and "8" in answer
    notes = [e.message for e in events if e.kind == "notice"]
    assert any("below the floor" in n and why in n and "used the offline brain" in n for n in notes), notes
    assert all(SYNTHESIS_NOTE.search(n) for n in notes)  # eval qa counts the turn as given the offline draft


async def test_a_draft_at_the_floor_is_delivered_as_written():
    reply = "LoRA uses a rank of 8 by default [1]."
    with FakeServer() as server:
        server.text = reply
        events: list = []
        with capture(events.append):
            answer = await brain(server.url).synthesize(REQUEST)
    assert answer == reply
    assert not [e for e in events if e.kind == "notice"]


def test_the_floor_is_the_offline_draft_itself():
    offline = OfflineBrain(Settings(), vocabulary=VOCAB).compose(REQUEST)
    assert floor_problems(REQUEST, offline, offline) == []
    assert floor_problems(REQUEST, "[1]", offline)  # a bare marker is below it
    assert floor_problems(REQUEST, "LoRA merges the adapters after training [1].", offline) == [
        "its direct answer lacks 8 from the offline draft's answer"]
