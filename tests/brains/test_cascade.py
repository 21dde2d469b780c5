"""RulesFirst: the rules answer slot filling, the critic and replanning unless they cannot decide."""

from __future__ import annotations

from core.brains.base import SlotFillingOutput
from core.brains.cascade import RulesFirst, ambiguous, undecided
from core.brains.llm.brain import LLMBrain
from core.brains.offline.brain import OfflineBrain
from core.config import Settings
from core.types import CriticVerdict, Intent, RetrievedContext, Turn
from tests.support.scripted_model import ScriptedChatModel, by_purpose
from tests.support.vocab import bundled_vocabulary

VOCAB = bundled_vocabulary()  # the bundled collection's names, as a turn over it has them

CTX = [RetrievedContext(content="LoRA freezes the pretrained weights and trains low-rank matrices of rank 8.",
                        chunk_id="c1", title="LoRA")]
INTENT = Intent(type="factual", confidence=1.0, entities=["LoRA"], reformulated_query="What does LoRA freeze?")
LLM_CRITIC = '{"passed": true, "score": 8, "completeness": 0.9, "faithfulness": 1.0, "feedback": ""}'
LLM_SLOTS = ('{"entities": ["frobnicator", "whatsit"], "dimensions": [], "constraints": {}, '
             '"reformulated_query": "frobnicator vs whatsit"}')


def verdict(score: float, passed: bool) -> CriticVerdict:
    return CriticVerdict(passed=passed, score=score, completeness=1.0, faithfulness=1.0, feedback="")


def test_undecided_is_a_verdict_near_the_bar_on_the_wrong_side():
    assert not undecided(verdict(9.0, True), 7.0, 1.5) and undecided(verdict(7.5, True), 7.0, 1.5)
    assert not undecided(verdict(4.0, False), 7.0, 1.5) and undecided(verdict(6.0, False), 7.0, 1.5)
    assert undecided(verdict(8.6, False), 7.0, 1.5)  # the rules found a gap despite a high score


def test_ambiguous_slots():
    slots = SlotFillingOutput(entities=["LoRA"], reformulated_query="q")
    assert ambiguous(slots, "comparative", []) and not ambiguous(slots, "factual", [])
    nothing = SlotFillingOutput(reformulated_query="q")
    assert ambiguous(nothing, "factual", [])
    turn = Turn(question="What is LoRA?", answer="LoRA adapts weights [1].")
    assert "follow-up" in ambiguous(nothing, "follow_up", [turn])


def brains():
    settings = Settings()
    model = ScriptedChatModel(respond=by_purpose({"critic": LLM_CRITIC, "slots": LLM_SLOTS}))
    offline = OfflineBrain(settings, vocabulary=VOCAB)
    return RulesFirst(offline, LLMBrain(model, settings, fallback=offline), settings), model


async def test_a_clear_rule_verdict_stands_and_an_undecided_one_goes_to_the_llm():
    first, model = brains()
    good = "LoRA freezes the pretrained weights and trains low-rank matrices [1]."
    v = await first.critique("What does LoRA freeze?", INTENT, CTX, good, [])
    assert v.passed and v.score >= 8.5 and model.calls == []
    bad = "LoRA was invented on the moon by astronauts in 1969 [1]."
    v = await first.critique("What does LoRA freeze?", INTENT, CTX, bad, [])
    assert not v.passed and model.calls == []  # a clear fail: no call
    near = good + " It is widely used for adapters in industry today [1]."
    v = await first.critique("What does LoRA freeze?", INTENT, CTX, near, [])
    assert [c.purpose for c in model.calls] == ["critic"] and v.score == 8


async def test_slots_go_to_the_llm_only_when_ambiguous():
    first, model = brains()
    out = await first.fill_slots("What rank does LoRA use?", "factual", [], [])
    assert out.entities == ["LoRA"] and model.calls == []
    out = await first.fill_slots("Compare the frobnicator with the whatsit", "comparative", [], [])
    assert out.entities == ["frobnicator", "whatsit"] and [c.purpose for c in model.calls] == ["slots"]
