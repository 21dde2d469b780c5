"""Really train a MiniLM LoRA router for a few steps, save it, reload it, route and evaluate with it."""

from __future__ import annotations

import json

import pytest

from core.config import Settings
from core.models.router import load_router
from training.data.generate_router import HELDOUT_FILE, TRAIN_FILE, read_jsonl, write_jsonl
from training.eval_router import classification_report, evaluate_router
from training.router_minilm import RouterTrainConfig, train_router_minilm
from tests.support.extras import needs

pytestmark = needs("train")  # trains and loads the adapter with torch and PEFT


@pytest.fixture(scope="module")
def tiny_adapter(tmp_path_factory):
    out = tmp_path_factory.mktemp("router") / "adapter"
    summary = train_router_minilm(RouterTrainConfig(out=out, max_steps=4, limit=48, batch_size=12), log=lambda _: None)
    return out, summary


@pytest.mark.slow
def test_training_saves_a_small_loadable_adapter(tiny_adapter):
    out, summary = tiny_adapter
    assert summary["steps"] == 4 and summary["examples"] == 48
    assert (out / "adapter_model.safetensors").stat().st_size < 3 * 1024 * 1024
    config = json.loads((out / "adapter_config.json").read_text())
    assert config["base_model_name_or_path"] == "minilm"
    assert set(config["target_modules"]) == {"query", "key", "value"}
    # the Chinese rows' characters missing from MiniLM's vocabulary get trainable embedding rows
    assert summary["extra_chars"] and config["trainable_token_indices"]["word_embeddings"]
    assert len(config["trainable_token_indices"]["word_embeddings"]) == len(summary["extra_chars"])


@pytest.mark.slow
async def test_reloaded_adapter_routes(tiny_adapter):
    settings = Settings()
    settings.agent.router_model = str(tiny_adapter[0])
    router = load_router(settings)
    decision = await router.classify("Compare LoRA and QLoRA", [])
    assert decision.router == "lora:minilm"
    assert abs(sum(decision.scores.values()) - 1) < 0.01 and abs(decision.confidence - max(decision.scores.values())) < 1e-3


@pytest.mark.slow
def test_evaluation_report(tiny_adapter, tmp_path):
    from core.models.router import load_router_dir

    data = tmp_path / "few.jsonl"
    write_jsonl(data, read_jsonl(HELDOUT_FILE)[:10])
    report = evaluate_router(load_router_dir(tiny_adapter[0]), data, warmup=1, baseline=False)
    assert report["n"] == 10 and 0 <= report["accuracy"] <= 1
    assert sum(map(sum, report["confusion"]["matrix"])) == 10
    assert report["latency_ms"]["p95"] >= report["latency_ms"]["p50"] > 0


def test_char_vocab_gives_unknown_han_characters_reserved_rows():
    from core.models.minilm_classifier import CharVocab, new_tokenizer

    tok = new_tokenizer()
    vocab = CharVocab.build(tok, ["比较 LoRA 和 QLoRA 的显存占用", "显存是多少"])
    assert vocab.chars[:2] == "存显"  # the unknown ones only (比, 和, 的 are in MiniLM's vocabulary), most frequent first
    assert "比" not in vocab.chars and set(vocab.chars) == set("存显占多少是用较")
    reserved = [tok.convert_tokens_to_ids(f"[unused{n}]") for n in range(len(vocab.chars))]
    assert [vocab.ids[ch] for ch in vocab.chars] == reserved
    plain = tok(["比较显存 LoRA 鑫"])["input_ids"][0]
    mapped = vocab.encode(tok, ["比较显存 LoRA 鑫"], 32)["input_ids"][0].tolist()
    assert plain.count(tok.unk_token_id) == 4
    assert mapped == [vocab.ids.get(ch, t) if t == tok.unk_token_id else t
                      for ch, t in zip("^比较显存LL鑫$", plain)]  # 较显存 remapped, LoRA untouched
    assert mapped.count(tok.unk_token_id) == 1  # 鑫 was never seen: stays [UNK]


def test_classification_report_math():
    report = classification_report(["factual", "factual", "comparative"], ["factual", "comparative", "comparative"])
    assert report["accuracy"] == round(2 / 3, 4)
    assert report["per_label"]["factual"] == {"precision": 1.0, "recall": 0.5, "f1": round(2 / 3, 4), "support": 2}
    assert report["confusion"]["matrix"][0][:2] == [1, 1]


def test_ece_and_language_detection():
    from training.eval_router import detect_lang, expected_calibration_error, row_lang

    assert expected_calibration_error([1.0, 1.0], [True, True]) == 0.0
    assert expected_calibration_error([0.9, 0.9], [True, False]) == 0.4
    assert expected_calibration_error([0.95, 0.55], [True, False]) == round(0.5 * 0.05 + 0.5 * 0.55, 4)
    assert detect_lang("那它的训练数据呢？") == "zh" and detect_lang("Was the code published?") == "en"
    assert row_lang({"question": "What is LoRA?", "lang": "zh"}) == "zh"  # an explicit lang wins


@pytest.mark.slow
def test_evaluation_on_real_paper_format_and_calibration(tiny_adapter, tmp_path):
    """Rows without ``lang`` (the real-paper question format): language from the text, ECE, model alone."""
    from core.models.router import load_router_dir
    from training.eval_router import calibrate_threshold, write_calibration

    data = tmp_path / "dev.jsonl"
    write_jsonl(data, [
        {"id": "a", "question": "What GLUE score did the original paper report?", "label": "factual", "history": []},
        {"id": "b", "question": "Was the code published?", "label": "follow_up",
         "history": [{"role": "user", "content": "What is ALBERT?"}, {"role": "assistant", "content": "A lite BERT."}]},
        {"id": "c", "question": "它在 GLUE 上的得分是多少？", "label": "follow_up",
         "history": [{"role": "user", "content": "Perceiver IO 是什么？"}, {"role": "assistant", "content": "一种通用架构。"}]},
    ])
    router = load_router_dir(tiny_adapter[0])
    report = evaluate_router(router, data, warmup=0, baseline=False)
    assert report["n_by_lang"] == {"en": 2, "zh": 1} and 0 <= report["ece"] <= 1
    assert report["per_label"]["follow_up"]["recall"] == 1.0  # history + back-reference ⇒ follow_up
    raw = evaluate_router(router, data, warmup=0, baseline=False, raw=True)
    assert raw["router"].endswith("(model only)") and set(raw["routers"]) == {"lora:minilm"}
    result = calibrate_threshold(router, data, grid=(0.0, 0.5, 1.01))
    assert [g["threshold"] for g in result["grid"]] == [0.0, 0.5, 1.01] and result["grid"][-1]["fallbacks"] == 3
    assert 0.5 <= result["temperature"] <= 5.0
    out = tmp_path / "adapter"
    out.mkdir()
    (out / "label_map.json").write_text(json.dumps({"labels": []}))
    write_calibration(out, result)
    meta = json.loads((out / "label_map.json").read_text())
    assert meta["temperature"] == result["temperature"] and meta["fallback_threshold"] == result["best"]["threshold"]


def test_training_data_is_not_the_heldout_data():
    assert TRAIN_FILE != HELDOUT_FILE and TRAIN_FILE.exists() and HELDOUT_FILE.exists()


@pytest.mark.slow
def test_label_smoothing_reaches_the_loss(tmp_path):
    """The same seed, data and step: only the smoothed loss differs, and the adapter records the setting."""
    runs = {ls: train_router_minilm(RouterTrainConfig(out=tmp_path / f"ls{ls}", max_steps=1, limit=12, batch_size=12,
                                                      label_smoothing=ls), log=lambda _: None) for ls in (0.0, 0.3)}
    assert runs[0.3]["label_smoothing"] == 0.3 and runs[0.0]["label_smoothing"] == 0.0
    assert runs[0.3]["final_loss"] != runs[0.0]["final_loss"]
    assert json.loads((tmp_path / "ls0.3" / "label_map.json").read_text())["label_smoothing"] == 0.3


@pytest.mark.slow
def test_warm_start_begins_from_the_init_adapter_and_records_it(tiny_adapter, tmp_path):
    """``init``: the new model starts with the init adapter's outputs exactly, trains on, and says where it began."""
    import torch

    from core.models.minilm_classifier import load_classifier
    from training.router_minilm import _warm_start

    init = tiny_adapter[0]
    model, tokenizer, chars = _warm_start(init, dropout=0.1)
    reference, _ = load_classifier(init, 5)
    model.eval()
    batch = chars.encode(tokenizer, ["Compare LoRA and QLoRA", "比较 LoRA 和 QLoRA 的显存占用"], 64)
    with torch.inference_mode():
        assert torch.allclose(model(**batch).logits, reference(**batch).logits, atol=1e-4)
    summary = train_router_minilm(RouterTrainConfig(out=tmp_path / "warm", max_steps=2, limit=24, batch_size=12,
                                                    init=init), log=lambda _: None)
    assert summary["init"] == {"from": init.name, "steps": 4, "data": TRAIN_FILE.name, "seed": 13}
    assert summary["extra_chars"] == tiny_adapter[1]["extra_chars"]  # the init's character rows, same order


def test_warm_start_from_an_adapter_with_other_labels_is_refused(tmp_path):
    from training.router_minilm import _warm_start

    (tmp_path / "label_map.json").write_text(json.dumps({"labels": ["yes", "no"]}))
    with pytest.raises(ValueError, match="labels"):
        _warm_start(tmp_path, dropout=0.1)
