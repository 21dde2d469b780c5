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
