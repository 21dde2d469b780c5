"""The floor an LLM draft must reach (core.brains.llm.floor): the offline draft of the same evidence.

A real ChatOpenAI talks to a local OpenAI-compatible server (tests.support.fake_openai, the model
being the edge that cannot run here); the offline brain and its rule critic are the real ones.
"""

from __future__ import annotations

import pytest

from core.brains.base import SynthesisRequest
from core.brains.llm.brain import LLMBrain
from core.brains.llm.chat import build_chat_model
from core.brains.llm.floor import floor_problems, turn_floor_problems
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


OTHER = [RetrievedContext(content="The adapters are merged after training. Merging adds no inference latency.",
                          chunk_id="c9", doc_id="lora", title="LoRA: Low-Rank Adaptation")]
NO_EVIDENCE = "The knowledge base holds no evidence to answer this question."


def test_the_turn_floor_compares_each_answer_over_its_own_evidence():
    offline = "LoRA uses a rank of 8 by default [1]."
    # the same claim, cited to the LLM turn's own (other) evidence, which does not hold it
    assert turn_floor_problems(REQUEST.question, "LoRA uses a rank of 8 by default [1].", OTHER, offline, CTX) == [
        "1 of its 1 cited claim(s) are not in their sources"]
    # true of its own evidence, but not the offline answer's lead fact
    assert turn_floor_problems(REQUEST.question, "Merging adds no inference latency [1].", OTHER, offline, CTX) == [
        "its direct answer lacks 8 from the offline draft's answer"]
    assert turn_floor_problems(REQUEST.question, offline, CTX, offline, CTX) == []


def test_the_turn_floor_keeps_the_offline_turns_abstention_where_the_draft_floor_does_not():
    answer = "The adapters are merged after training [1]."
    assert floor_problems(SynthesisRequest(kind="simple", question=REQUEST.question, intent=INTENT, contexts=OTHER),
                          answer, NO_EVIDENCE) == []
    assert turn_floor_problems(REQUEST.question, answer, OTHER, NO_EVIDENCE, []) == [
        "the draft answers where the offline answer found no evidence"]
    assert turn_floor_problems(REQUEST.question, NO_EVIDENCE, [], NO_EVIDENCE, []) == []
    assert turn_floor_problems(REQUEST.question, NO_EVIDENCE, [], "LoRA uses a rank of 8 by default [1].", CTX) == [
        "the draft declines although the evidence answers the question"]


def test_a_comparison_row_declined_where_the_offline_table_cites_one_is_below_the_floor():
    """A comparison table's row is the direct answer for its side: a turn whose table finds nothing
    for a side the offline answer's table fills is below the floor, though each cites its sources."""
    q = "What PSNR do Kite and Wren reach?"
    ctx = [RetrievedContext(content="Kite reaches a PSNR of 24.1 dB.", chunk_id="k", doc_id="kite", title="Kite"),
           RetrievedContext(content="Wren reaches a PSNR of 23.5 dB.", chunk_id="w", doc_id="wren", title="Wren")]
    offline = ("| | PSNR |\n|---|---|\n| **Kite** | Kite reaches a PSNR of 24.1 dB [1] |\n"
               "| **Wren** | Wren reaches a PSNR of 23.5 dB [2] |")
    drifted = ("| | PSNR |\n|---|---|\n| **Kite** | not found in the knowledge base |\n"
               "| **Wren** | Wren reaches a PSNR of 23.5 dB [1] |")
    assert turn_floor_problems(q, drifted, ctx[1:], offline, ctx) == [
        "its table finds no evidence for Kite, which the offline answer's table cites"]
    request = SynthesisRequest(kind="comparative", question=q, intent=INTENT, contexts=ctx)
    assert floor_problems(request, drifted.replace("[1]", "[2]"), offline) == [
        "its table finds no evidence for Kite, which the offline answer's table cites"]
    assert turn_floor_problems(q, offline, ctx, offline, ctx) == []
    # a row both tables leave empty is no loss
    both = offline.replace("Kite reaches a PSNR of 24.1 dB [1]", "not found in the knowledge base")
    assert turn_floor_problems(q, drifted, ctx[1:], both, ctx) == []


def test_the_turn_floor_is_built_for_an_llm_brain_only():
    from core.brains.factory import build_floor

    llm = {"provider": "openai", "base_url": "http://127.0.0.1:9/v1", "api_key": "sk-test"}
    assert build_floor(Settings.model_validate({"llm": {"provider": "offline"}})) is None
    assert build_floor(Settings.model_validate({"llm": {**llm, "turn_floor": False}})) is None
    floor = build_floor(Settings.model_validate({"llm": llm, "agent": {"router": "rules", "critic": "rules"}}))
    assert isinstance(floor, OfflineBrain)


def test_the_turn_floor_shares_the_turns_lora_router():
    """The floor's router is the turn's own (one adapter in memory, loaded once), and is still the
    offline set-up's when the turn's brain routes otherwise."""
    from core.brains.composite import LazyPart
    from core.brains.factory import build_brain, build_floor

    s = Settings.model_validate({"llm": {"provider": "openai", "base_url": "http://127.0.0.1:9/v1", "api_key": "sk-test"},
                                 "agent": {"router": "lora"}})
    brain = build_brain(s)
    router = brain.parts["classify"]
    assert isinstance(router, LazyPart) and build_floor(s, brain).parts["classify"] is router
    assert isinstance(build_floor(s).parts["classify"], LazyPart) and build_floor(s).parts["classify"] is not router


CHAIN_CTX = [RetrievedContext(content="Kite adds sparse attention to the Wren architecture.", chunk_id="k1", doc_id="kite",
                              title="Kite"),
             RetrievedContext(content="Wren casts every task as text-to-text with a 12-layer decoder.", chunk_id="w1",
                              doc_id="wren", title="Wren")]
CHAIN_Q = "Kite builds on an earlier model; into what format does that model cast every task?"


def test_the_floor_compares_a_chains_conclusion_not_its_first_step():
    offline = ("1. **Kite builds on an earlier model** Kite adds sparse attention to the Wren architecture [1].\n"
               "2. **into what format?** Wren casts every task as text-to-text with a 12-layer decoder [2].\n\n"
               "**Conclusion:** Wren casts every task as text-to-text with a 12-layer decoder [2].")
    # the first step is the same, so a first-paragraph comparison passed it; its conclusion lost the answer
    drifted = ("1. **Kite builds on an earlier model; into what format?** Kite adds sparse attention to the Wren "
               "architecture [1].\n\n**Conclusion:** Kite adds sparse attention to the Wren architecture [1].")
    request = SynthesisRequest(kind="multi_hop", question=CHAIN_Q, intent=INTENT, contexts=CHAIN_CTX)
    assert floor_problems(request, drifted, offline) == [
        "its direct answer lacks 12 from the offline draft's answer"]
    assert turn_floor_problems(CHAIN_Q, drifted, CHAIN_CTX, offline, CHAIN_CTX) == [
        "its direct answer lacks 12 from the offline draft's answer"]
    assert floor_problems(request, offline, offline) == []


def test_a_draft_that_copies_its_evidence_block_is_not_an_answer():
    from core.brains.llm.checks import draft_problems
    from core.prompts.common import context_header

    long_ctx = RetrievedContext(content="Kestrel streams five times faster than a Transformer.", chunk_id="k2",
                                doc_id="kestrel", title="Kestrel: Linear-Time Sequence Modeling with Small States",
                                breadcrumb="Kestrel > Abstract")
    headers = [context_header(1, long_ctx), context_header(2, CTX[0])]
    copied = f"{headers[0]}\nKestrel streams five times faster than a Transformer."
    assert draft_problems(copied, "", [], 1024, headers) == [f"the draft copies its evidence block ({headers[0][:60]})"]
    # a claim that opens with a marker and a paper's short name is an answer, not a copied header
    assert draft_problems("[2] LoRA uses a rank of 8 by default.", "", [], 1024, headers) == []
    assert draft_problems("Kestrel streams five times faster than a Transformer [1].", "", [], 1024, headers) == []
