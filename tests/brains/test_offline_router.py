"""Offline router: demo questions route to their strategies; follow-ups need history; real confidence."""

from __future__ import annotations

import pytest

from core.brains.base import Turn
from core.brains.offline import OfflineBrain
from core.state import INTENT_TYPES, Intent
from tests.support.vocab import bundled_vocabulary

VOCAB = bundled_vocabulary()  # the bundled collection's names, as a turn over it has them

LORA_TURN = Turn(question="What is LoRA?", answer="LoRA freezes the pretrained weights and trains low-rank matrices [1].", entities=["LoRA"])
COMPARE_TURN = Turn(question="Compare LoRA and QLoRA in memory use and accuracy", answer="| | Memory |\n|---|---|", entities=["LoRA", "QLoRA"])

CASES = [
    # the four demo questions
    ("What rank does LoRA use by default?", "factual"),
    ("Compare LoRA and QLoRA in memory use and accuracy", "comparative"),
    ("How does QLoRA build on LoRA to fine-tune a 65B model on a single GPU?", "multi_hop"),
    ("Trace how alignment methods evolved from RLHF to DPO", "exploratory"),
    # more English
    ("What is the boiling point of tungsten?", "factual"),
    ("Who introduced the Transformer architecture?", "factual"),
    ("DPO vs RLHF: which is more stable to train?", "comparative"),
    ("What is the difference between ReAct and ReWOO?", "comparative"),
    ("Why does reward hacking lead to unstable PPO training?", "multi_hop"),
    ("Explain step by step how RAG grounds an answer in retrieved documents", "multi_hop"),
    ("Give me an overview of the landscape of parameter-efficient fine-tuning", "exploratory"),
    ("What are the main approaches to aligning language models with human preferences?", "exploratory"),
    # Chinese
    ("LoRA和QLoRA有什么区别？", "comparative"),
    ("对比DPO和RLHF的训练稳定性", "comparative"),
    ("从RLHF到DPO，对齐方法是如何发展的？", "exploratory"),
    ("QLoRA如何基于LoRA在单张GPU上微调65B模型？", "multi_hop"),
    ("LoRA默认的秩是多少？", "factual"),
]


@pytest.mark.parametrize(("question", "expected"), CASES)
async def test_first_turn_routes(question: str, expected: str) -> None:
    decision = await OfflineBrain(vocabulary=VOCAB).classify(question, [])
    assert decision.type == expected, decision.scores
    assert decision.router == "rules"
    assert 0 < decision.confidence <= 1
    assert set(decision.scores) == set(INTENT_TYPES)
    assert decision.scores["follow_up"] == 0.0
    assert sum(decision.scores.values()) == pytest.approx(1.0, abs=1e-3)


@pytest.mark.parametrize("question", [
    "And how much memory does that save?", "and what about its memory cost?", "What is its default rank?",
    "What about QLoRA?", "那它能节省多少显存？",
])
async def test_pronouns_and_ellipsis_after_a_turn_are_follow_ups(question: str) -> None:
    brain = OfflineBrain(vocabulary=VOCAB)
    assert (await brain.classify(question, [LORA_TURN])).type == "follow_up"
    assert (await brain.classify(question, [])).type != "follow_up"  # never on a first turn


async def test_which_one_after_a_comparison_is_a_follow_up() -> None:
    decision = await OfflineBrain(vocabulary=VOCAB).classify("and which one is faster to train?", [COMPARE_TURN])
    assert decision.type == "follow_up"
    assert decision.confidence > 0.5


async def test_self_contained_question_with_history_is_not_a_follow_up() -> None:
    decision = await OfflineBrain(vocabulary=VOCAB).classify("Compare DPO and RLHF in stability and data needs", [LORA_TURN])
    assert decision.type == "comparative"


async def test_confidence_tracks_the_evidence() -> None:
    brain = OfflineBrain(vocabulary=VOCAB)
    strong = await brain.classify("Compare LoRA and QLoRA in memory use and accuracy", [])
    weak = await brain.classify("LoRA and QLoRA", [])
    assert strong.confidence > weak.confidence
    assert len({strong.confidence, weak.confidence}) == 2


async def test_routing_is_deterministic_and_maps_to_strategies() -> None:
    brain = OfflineBrain(vocabulary=VOCAB)
    first = [await brain.classify(q, []) for q, _ in CASES]
    again = [await brain.classify(q, []) for q, _ in CASES]
    assert first == again
    strategies = {Intent(type=d.type, confidence=d.confidence).to_strategy() for d in first[:4]}
    assert strategies == {"simple", "comparative", "multi_hop", "exploratory"}


# --- combining a learned router with conversation signals (core.brains.routing) -------------------

from core.brains.base import RouteDecision  # noqa: E402
from core.brains.routing import combine, signals  # noqa: E402


def _model(label: str, p: float = 0.8) -> RouteDecision:
    rest = (1 - p) / (len(INTENT_TYPES) - 1)
    return RouteDecision(type=label, confidence=p, router="lora:minilm",
                         scores={k: (p if k == label else rest) for k in INTENT_TYPES})


@pytest.mark.parametrize("question", [
    "Was the code released?", "Who proposed that?", "How does it compare with Faster R-CNN on COCO?",
    "What about QLoRA?", "And on ImageNet?", "那它的训练数据呢？", "它在 GLUE 上的得分是多少？",
])
def test_a_back_reference_after_a_turn_is_a_follow_up(question: str) -> None:
    decision = combine(_model("factual"), question, [LORA_TURN])
    assert decision.type == "follow_up" and decision.router == "lora:minilm+cue"
    assert decision.confidence == pytest.approx(max(decision.scores.values()))
    assert sum(decision.scores.values()) == pytest.approx(1.0, abs=1e-3)


@pytest.mark.parametrize(("question", "label"), [
    ("Compare DPO and RLHF in stability and data needs", "comparative"),
    ("What learning rate does QLoRA use according to the QLoRA paper?", "factual"),
    ("Quill-7B is a code model from Meta; what pass@1 does it reach on HumanEval?", "factual"),
    ("What strategies do the papers in this collection use to make attention cheaper on long inputs?", "exploratory"),
])
def test_a_self_contained_question_after_a_decoy_turn_keeps_the_model_label(question: str, label: str) -> None:
    assert not signals(question, [LORA_TURN]).follow_up_cue
    decision = combine(_model(label), question, [LORA_TURN])
    assert decision.type == label and decision.router == "lora:minilm"


@pytest.mark.parametrize("question", ["Was the code released?", "What about QLoRA?", "那它的训练数据呢？"])
def test_no_history_is_never_a_follow_up(question: str) -> None:
    decision = combine(_model("follow_up", 0.7), question, [])
    assert decision.type != "follow_up" and decision.scores["follow_up"] == 0.0
    assert sum(decision.scores.values()) == pytest.approx(1.0, abs=1e-3)
    assert "+cue" in decision.router


def test_low_confidence_falls_back_and_says_so() -> None:
    rules = RouteDecision(type="comparative", confidence=0.6, router="rules",
                          scores={k: (0.6 if k == "comparative" else 0.1) for k in INTENT_TYPES})
    low = combine(_model("multi_hop", 0.41), "How do A and B differ?", [], fallback=lambda: rules, threshold=0.5)
    assert low.type == "comparative" and low.router == "lora:minilm→rules (p=0.48)"  # 0.41 without follow_up mass
    high = combine(_model("multi_hop", 0.9), "How do A and B differ?", [], fallback=lambda: rules, threshold=0.5)
    assert high.type == "multi_hop" and high.router == "lora:minilm"
    off = combine(_model("factual", 0.3), "Was the code released?", [LORA_TURN], use_signals=False)
    assert off.type == "factual"
