"""The shipped MiniLM LoRA router: loads from the repo, routes the demo questions, fails cleanly."""

from __future__ import annotations

import json

import pytest

from core.brains.base import Turn
from core.config import Settings
from core.models.manager import SHIPPED_ROUTER, ModelNotAvailable
from core.models.router import load_router
from core.prompts.local_router import format_router_input, turns_from_chat

DEMO = [
    ("What rank does LoRA use by default?", "factual"),
    ("Compare LoRA and QLoRA in memory use and accuracy", "comparative"),
    ("How does QLoRA build on LoRA to fine-tune a 65B model on a single GPU?", "multi_hop"),
    ("Trace how alignment methods evolved from RLHF to DPO", "exploratory"),
]
PREVIOUS = Turn(question="What rank does LoRA use by default?",
                answer="LoRA uses a rank of 8 by default and trains only the low-rank matrices [1].")


def test_input_format_uses_only_the_last_turn_clipped():
    old = Turn(question="first question", answer="first answer")
    long = Turn(question="q " * 200, answer="a " * 200)
    text = format_router_input("  And   its memory? ", [old, long])
    assert text.startswith("And its memory? [SEP] previous question: q q")
    assert "first" not in text and len(text) < 300
    assert format_router_input("What is LoRA?", []) == "What is LoRA?"
    assert turns_from_chat([{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]) == [
        Turn(question="q", answer="a")]


def test_shipped_adapter_is_small_and_complete():
    files = {p.name: p.stat().st_size for p in SHIPPED_ROUTER.iterdir()}
    assert {"adapter_config.json", "adapter_model.safetensors", "classifier_head.safetensors",
            "label_map.json"} <= set(files)
    assert sum(files.values()) < 3 * 1024 * 1024
    meta = json.loads((SHIPPED_ROUTER / "label_map.json").read_text())
    assert meta["base"] == "minilm" and len(meta["labels"]) == 5


@pytest.fixture(scope="module")
def router():
    return load_router(Settings())


@pytest.mark.slow
@pytest.mark.parametrize(("question", "label"), DEMO)
async def test_demo_questions(router, question, label):
    decision = await router.classify(question, [])
    assert decision.type == label, decision.scores
    assert decision.router == "lora:minilm"
    assert 0.2 < decision.confidence <= 1 and abs(decision.confidence - max(decision.scores.values())) < 1e-3
    assert abs(sum(decision.scores.values()) - 1) < 0.01


@pytest.mark.slow
async def test_follow_up_with_history(router):
    decision = await router.classify("And how much memory does it save?", [PREVIOUS])
    assert decision.type == "follow_up", decision.scores
    standalone = await router.classify("Compare LoRA and QLoRA in memory use and accuracy", [PREVIOUS])
    assert standalone.type == "comparative", standalone.scores


@pytest.mark.slow
async def test_terse_follow_ups_decoys_and_first_turns(router):
    for question in ("Was the code published?", "Who proposed that?", "How does it compare with Faster R-CNN on COCO?",
                     "那它的训练数据呢？"):
        decision = await router.classify(question, [PREVIOUS])
        assert decision.type == "follow_up", (question, decision)
    for question in ("What learning rate does the Quill-7B paper report?",
                     "What strategies do the papers in this collection use to make attention cheaper on long inputs?"):
        decision = await router.classify(question, [PREVIOUS])  # a decoy history: self-contained question
        assert decision.type != "follow_up", (question, decision)
    for question in ("Was the code published?", "And how much memory does it save?"):
        decision = await router.classify(question, [])
        assert decision.type != "follow_up" and decision.scores["follow_up"] == 0.0


@pytest.mark.slow
def test_model_alone_and_combined_decision(router):
    raw = router.model_sync("Who proposed that?", [PREVIOUS])
    assert raw.router == "lora:minilm" and abs(sum(raw.scores.values()) - 1) < 0.01
    combined = router.classify_sync("Who proposed that?", [PREVIOUS])
    assert combined.type == "follow_up" and combined.router.startswith("lora:minilm")
    meta = json.loads((SHIPPED_ROUTER / "label_map.json").read_text())
    assert router.temperature == meta.get("temperature", 1.0) and router.threshold == meta.get("fallback_threshold", 0.0)


@pytest.mark.slow
def test_low_confidence_falls_back_to_the_rules_and_says_so(router, monkeypatch):
    monkeypatch.setattr(router, "threshold", 1.01)  # every decision is "unsure"
    decision = router.classify_sync("Compare LoRA and QLoRA in memory use and accuracy", [])
    assert decision.router.startswith("lora:minilm→rules (p=") and decision.type == "comparative"


def test_missing_adapter_is_one_clean_line(tmp_path):
    settings = Settings()
    settings.agent.router_model = str(tmp_path / "nope")
    with pytest.raises(ModelNotAvailable) as err:
        load_router(settings)
    assert "\n" not in str(err.value) and "nope" in str(err.value)


def test_broken_adapter_is_one_clean_line(tmp_path):
    (tmp_path / "adapter_config.json").write_text("{}")
    (tmp_path / "label_map.json").write_text(json.dumps({"labels": ["factual", "comparative", "multi_hop",
                                                                   "exploratory", "follow_up"], "base": "minilm"}))
    settings = Settings()
    settings.agent.router_model = str(tmp_path)
    with pytest.raises(ModelNotAvailable) as err:
        load_router(settings)
    assert "\n" not in str(err.value)
