"""LocalModelManager: base resolution, the 4-bit NF4 recipe, caching, one-line failures."""

from __future__ import annotations

import pytest

from tests.support.extras import needs
from core.models.manager import (LocalModelManager, ModelNotAvailable, bnb_4bit_config, causal_lm_kwargs,
                                 resolve_base, smollm2_gguf)


@needs("smollm2")
def test_resolve_bases(tmp_path):
    folder, gguf = resolve_base("smollm2")
    assert gguf and gguf.endswith(".gguf") and smollm2_gguf().name == gguf
    assert resolve_base("minilm")[1] is None
    (tmp_path / "m.gguf").write_bytes(b"GGUF")
    assert resolve_base(str(tmp_path / "m.gguf")) == (str(tmp_path), "m.gguf")
    with pytest.raises(ModelNotAvailable) as err:
        resolve_base(str(tmp_path / "missing-model"))
    assert "\n" not in str(err.value) and "missing-model" in str(err.value)


@needs("train")
def test_4bit_config_is_qlora_recipe():
    import torch

    cfg = bnb_4bit_config()
    assert cfg.load_in_4bit and not cfg.load_in_8bit
    assert cfg.bnb_4bit_quant_type == "nf4"
    assert cfg.bnb_4bit_use_double_quant is True
    assert cfg.bnb_4bit_compute_dtype == torch.bfloat16


@needs("train")
def test_cpu_kwargs_are_full_precision():
    import torch

    assert causal_lm_kwargs(quantize=False) == {"dtype": torch.float32}
    assert causal_lm_kwargs(quantize=False, cpu_dtype="bfloat16") == {"dtype": torch.bfloat16}


def test_cache_loads_once():
    mgr, calls = LocalModelManager(), []
    assert mgr.get("k", lambda: calls.append(1) or "model") == "model"
    assert mgr.get("k", lambda: calls.append(1) or "other") == "model"
    assert calls == [1] and mgr.loaded() == ["k"]


@pytest.mark.gpu
@needs("train")
def test_4bit_load_on_cuda():
    import torch

    if not torch.cuda.is_available():
        pytest.skip("needs CUDA")
    model, tok = LocalModelManager().causal_lm("smollm2", quantize=True)
    assert getattr(model, "is_loaded_in_4bit", False)
    out = model.generate(**tok("Hello", return_tensors="pt").to(model.device), max_new_tokens=4)
    assert out.shape[1] > 1


@pytest.mark.slow
@needs("train")
@needs("smollm2")
def test_4bit_load_of_a_gguf_base_reads_a_dequantized_folder_made_once(tmp_path, monkeypatch):
    """transformers refuses ``quantization_config`` together with ``gguf_file`` ("cannot combine
    Quantization and loading a model from a GGUF file"), so on CUDA the bundled SmolLM2 never loaded in
    4 bits. bitsandbytes on CUDA is the edge that cannot run here: the precision keywords carry a
    stand-in config, which the spy drops before the real CPU load."""
    from pathlib import Path

    import torch
    from transformers import AutoModelForCausalLM

    from core.models import manager

    monkeypatch.setenv("PAPERPILOT_ONNX_CACHE", str(tmp_path / "cache" / "onnx"))
    calls: list[tuple[str, set]] = []
    real = AutoModelForCausalLM.from_pretrained.__func__

    def spy(cls, path, *args, **kw):
        calls.append((str(path), set(kw)))
        kw.pop("quantization_config", None)
        kw.pop("device_map", None)
        return real(cls, path, *args, **kw)

    monkeypatch.setattr(AutoModelForCausalLM, "from_pretrained", classmethod(spy))
    monkeypatch.setattr(manager, "causal_lm_kwargs", lambda quantize=None, cpu_dtype="float32": (
        {"quantization_config": object(), "device_map": "auto", "dtype": torch.bfloat16} if quantize
        else {"dtype": torch.float32}))
    model, tok = manager.load_causal_lm("smollm2", quantize=True)
    assert calls and not any({"gguf_file", "quantization_config"} <= kw for _, kw in calls)
    folder = Path(calls[-1][0])
    assert "quantization_config" in calls[-1][1] and folder.parent == tmp_path / "cache" / "hf"
    assert (folder / "model.safetensors").exists() and "quantization_config" not in (folder / "config.json").read_text()
    stamp = (folder / "config.json").stat().st_mtime_ns
    assert manager.dequantized_folder(*manager.resolve_base("smollm2")) == str(folder)  # made once
    assert (folder / "config.json").stat().st_mtime_ns == stamp
    # the bf16 folder predicts what the GGUF itself predicts
    gguf_model, _ = manager.load_causal_lm("smollm2", quantize=False)
    ids = tok("The capital of France is", return_tensors="pt")["input_ids"]
    with torch.inference_mode():
        a = model.float()(input_ids=ids).logits[0, -1]
        b = gguf_model(input_ids=ids).logits[0, -1]
    assert int(a.argmax()) == int(b.argmax())
    assert torch.nn.functional.cosine_similarity(a, b, dim=0) > 0.99
