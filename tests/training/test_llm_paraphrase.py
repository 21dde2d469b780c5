"""Router data from the LLM brain: the scripted chat model stands in for the configured server."""

from __future__ import annotations

import json

import pytest

from core.brains.llm.caller import ModelCaller
from core.config import ConfigError, Settings
from tests.support.scripted_model import ScriptedChatModel
from training.data import generate_router
from training.data.generate_router import read_jsonl
from training.data.llm_paraphrase import caller_from_settings, extend_with_llm

SEEDS = [
    {"question": "What rank does LoRA use?", "history": [], "label": "factual", "lang": "en"},
    {"question": "Compare LoRA and QLoRA on memory", "history": [], "label": "comparative", "lang": "en"},
    {"question": "它的显存占用是多少？", "label": "follow_up", "lang": "zh",
     "history": [{"role": "user", "content": "QLoRA 是什么？"}, {"role": "assistant", "content": "QLoRA 是… [1]"}]},
]


def reply_for(call) -> str:
    prompt = call.text
    if "Compare LoRA and QLoRA" in prompt:
        return "this is not json at all"  # unreadable even after the repair request
    if "显存" in prompt:
        return json.dumps({"paraphrases": ["显存占用大概多少？", "那它要多少显存？"]}, ensure_ascii=False)
    return json.dumps({"paraphrases": [
        "Which rank does LoRA use by default?",
        "what rank does lora use?",            # loses the exact name LoRA: dropped
        "What rank does LoRA use?",            # the seed itself: a duplicate
        "Tell me the LoRA rank, please.",
    ]})


def caller(model) -> ModelCaller:
    return ModelCaller(model, model_name="scripted-llm", base_url="http://scripted")


def test_paraphrases_join_training_with_the_seed_label_and_never_repeat_heldout():
    heldout = [{"question": "Tell me the LoRA rank, please.", "history": [], "label": "factual", "lang": "en"}]
    model = ScriptedChatModel(respond=lambda messages, call: reply_for(call))
    train, counts = extend_with_llm(SEEDS, heldout, caller(model), seeds=5, per_seed=4, log=lambda _: None)
    added = [r for r in train if r.get("source") == "llm:scripted-llm"]
    assert {r["question"] for r in added} == {"Which rank does LoRA use by default?", "显存占用大概多少？", "那它要多少显存？"}
    by_q = {r["question"]: r for r in added}
    assert by_q["Which rank does LoRA use by default?"]["label"] == "factual"
    follow = by_q["那它要多少显存？"]
    assert follow["label"] == "follow_up" and follow["history"] == SEEDS[2]["history"] and follow["lang"] == "zh"
    assert counts["unreadable"] >= 1 and counts["lost_names"] >= 1 and counts["duplicate"] >= 2
    assert len(train) == len(SEEDS) + len(added)
    prompts = [c.text for c in model.calls]
    assert any("intent (comparative" in p and "Reply with JSON only" in p for p in prompts)
    assert any("Previous question: QLoRA 是什么？" in p for p in prompts)  # a follow-up is shown its context


def test_generator_cli_writes_llm_rows_to_training_only(tmp_path, monkeypatch):
    model = ScriptedChatModel(respond=lambda messages, call: json.dumps(
        {"paraphrases": [f"Please answer: {call.text.rsplit('Question: ', 1)[-1]}"]}, ensure_ascii=False))
    monkeypatch.setattr("training.data.llm_paraphrase.caller_from_settings", lambda settings: caller(model))
    assert generate_router.main(["--out-dir", str(tmp_path), "--llm", "10", "--per-seed", "1"]) == 0
    train, heldout = generate_router.generate()
    new_train = read_jsonl(tmp_path / "router_train.jsonl")
    assert read_jsonl(tmp_path / "router_heldout.jsonl") == heldout
    llm_rows = [r for r in new_train if r.get("source") == "llm:scripted-llm"]
    assert len(llm_rows) == 10 and len(new_train) == len(train) + 10
    assert all(r["question"].startswith("Please answer: ") for r in llm_rows)
    assert len({r["label"] for r in llm_rows}) == 5  # seeds are spread over the labels


def test_no_llm_configured_is_one_clear_error(capsys, monkeypatch):
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(ConfigError, match="llm.provider"):
        caller_from_settings(Settings())
    monkeypatch.setenv("PAPERPILOT_LLM_PROVIDER", "offline")
    assert generate_router.main(["--llm", "3", "--out-dir", "/nonexistent/never-written"]) == 2
    assert "error: llm.provider" in capsys.readouterr().err
