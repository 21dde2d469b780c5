"""The encoder and router graphs are built from the weights without torch, match PEFT/transformers
on torch, live in one verified cache per user, and never in a cache folder others can write."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from core import onnx_runtime
from core.models.manager import SHIPPED_ROUTER
from core.models.onnx_build import build_router

QUESTIONS = ["Compare LoRA and QLoRA in memory use and accuracy", "What rank does LoRA use by default?",
             "How did attention lead to the transformer and then to GPT?", "比较 LoRA 和 QLoRA 的显存占用",
             "x"]


def _classifier(path: Path):
    meta = json.loads((SHIPPED_ROUTER / "label_map.json").read_text(encoding="utf-8"))
    return onnx_runtime.OnnxClassifier(path, max_length=int(meta.get("max_length", 128)),
                                       extra_chars=meta.get("extra_chars", "")), len(meta["labels"])


@pytest.mark.slow
def test_router_graph_matches_the_peft_model_on_torch(tmp_path):
    pytest.importorskip("torch", reason="the torch reference needs the train extra")
    pytest.importorskip("peft", reason="the torch reference needs the train extra")
    from core.models.onnx_export import export_router

    built, n = _classifier(onnx_runtime.router_file(SHIPPED_ROUTER))
    export_router(SHIPPED_ROUTER, n, tmp_path / "torch.onnx")
    reference, _ = _classifier(tmp_path / "torch.onnx")
    a, b = built.logits(QUESTIONS), reference.logits(QUESTIONS)
    assert np.abs(a - b).max() < 1e-4 and (a.argmax(1) == b.argmax(1)).all()


def test_the_adapter_is_merged_not_ignored(tmp_path):
    """A router graph built without its LoRA and token rows gives other logits than the shipped one."""
    import shutil

    bare = tmp_path / "bare"
    shutil.copytree(SHIPPED_ROUTER, bare)
    from safetensors.numpy import load_file, save_file

    ad = load_file(str(bare / "adapter_model.safetensors"))
    save_file({k: np.zeros_like(v) if ".lora_B." in k else v for k, v in ad.items()
               if "trainable_tokens" not in k}, str(bare / "adapter_model.safetensors"))
    n = len(json.loads((bare / "label_map.json").read_text(encoding="utf-8"))["labels"])
    build_router(onnx_runtime.minilm_dir(), bare, n, tmp_path / "bare.onnx")
    shipped, _ = _classifier(onnx_runtime.router_file(SHIPPED_ROUTER))
    unmerged, _ = _classifier(tmp_path / "bare.onnx")
    assert np.abs(shipped.logits(QUESTIONS) - unmerged.logits(QUESTIONS)).max() > 0.1


def test_graphs_are_built_and_run_with_torch_unimportable(tmp_path):
    """A fresh cache on an install without torch/transformers/peft: the encoder and router build and run."""
    code = """
import sys
for m in ("torch", "transformers", "peft", "sentence_transformers"):
    sys.modules[m] = None  # import fails, as on the default install
import numpy as np
from core import onnx_runtime
from core.models.manager import SHIPPED_ROUTER
enc = onnx_runtime.OnnxEncoder()
v = enc.embed(["LoRA adds low-rank matrices.", "QLoRA quantizes to 4 bits.", "x"])
assert v.shape == (3, 384) and np.allclose(np.linalg.norm(v, axis=1), 1, atol=1e-5)
assert onnx_runtime.router_file(SHIPPED_ROUTER).parent == onnx_runtime.cache_dir()
print(sorted(p.name.split("-")[0] for p in onnx_runtime.cache_dir().glob("*.onnx")))
"""
    env = {**os.environ, "PAPERPILOT_ONNX_CACHE": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "['minilm', 'router']"


def test_one_cache_per_user_is_shared_by_data_dirs(tmp_path, monkeypatch):
    monkeypatch.delenv("PAPERPILOT_ONNX_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    dirs = set()
    for home in ("a", "b"):
        monkeypatch.setenv("PAPERPILOT_HOME", str(tmp_path / home))
        dirs.add(onnx_runtime.cache_dir())
    assert dirs == {tmp_path / "xdg" / "paperpilot" / "onnx"}
    assert (tmp_path / "xdg" / "paperpilot" / "onnx").stat().st_mode & 0o777 == 0o700


def test_a_cache_folder_others_can_write_is_not_used(tmp_path, monkeypatch):
    monkeypatch.delenv("PAPERPILOT_ONNX_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("PAPERPILOT_HOME", str(tmp_path / "home"))
    shared = tmp_path / "xdg" / "paperpilot" / "onnx"
    shared.mkdir(parents=True)
    shared.chmod(0o777)  # the test's own folder, made writable by others to stand for a planted one
    path = onnx_runtime.cache_dir()
    assert path != shared and path.is_relative_to(tmp_path / "home")


def test_an_altered_graph_is_rebuilt_not_run(tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERPILOT_ONNX_CACHE", str(tmp_path))
    builds: list[int] = []

    def build(p: Path) -> None:
        builds.append(1)
        p.write_bytes(b"graph v%d" % len(builds))

    out = tmp_path / "g.onnx"
    onnx_runtime._ensure(out, build)
    onnx_runtime._ensure(out, build)
    assert len(builds) == 1
    out.write_bytes(b"planted graph")
    onnx_runtime._ensure(out, build)
    assert len(builds) == 2 and out.read_bytes() == b"graph v2"


@pytest.mark.slow
def test_a_classifier_on_the_first_layers_builds_the_same_shorter_graph(tmp_path):
    """An adapter trained on the encoder's first two layers records it, loads on two layers in torch,
    and its graph (built without torch) has two layers and computes the same logits."""
    torch = pytest.importorskip("torch", reason="the torch reference needs the train extra")
    pytest.importorskip("peft", reason="the torch reference needs the train extra")
    from core.models.minilm_classifier import load_classifier, new_classifier, save_classifier
    from core.models.onnx_build import LAYERS_FILE, encoder_layers

    torch.manual_seed(0)
    model, _ = new_classifier(1, rank=4, alpha=8, dropout=0.0, layers=2)
    with torch.no_grad():  # a LoRA that changes something, so merging it is checked too
        for name, p in model.named_parameters():
            if "lora_B" in name:
                p.normal_(0, 0.05)
    save_classifier(model, tmp_path)
    assert encoder_layers(tmp_path) == 2 and json.loads((tmp_path / LAYERS_FILE).read_text())["num_hidden_layers"] == 2
    loaded, _ = load_classifier(tmp_path, 1)
    assert len(loaded.encoder.encoder.layer) == 2
    pairs = [(q, "LoRA freezes the pretrained weights and trains low-rank matrices.") for q in QUESTIONS]
    tok = onnx_runtime.tokenizer(96)
    enc = tok.encode_batch(pairs)
    ids = torch.tensor([e.ids for e in enc])
    with torch.no_grad():
        ref = loaded(input_ids=ids, attention_mask=torch.tensor([e.attention_mask for e in enc]),
                     token_type_ids=torch.zeros_like(ids)).logits[:, 0].numpy()
    build_router(onnx_runtime.minilm_dir(), tmp_path, 1, tmp_path / "short.onnx")
    got = onnx_runtime.OnnxClassifier(tmp_path / "short.onnx", max_length=96).logits(pairs)[:, 0]
    assert np.abs(got - ref).max() < 1e-3
    import onnx

    layers = {n.name.split("/")[2] for n in onnx.load(str(tmp_path / "short.onnx")).graph.node
              if n.name.startswith("/encoder/layer.")}
    assert layers == {"layer.0", "layer.1"}
    save_classifier(new_classifier(1, rank=4, alpha=8, dropout=0.0)[0], tmp_path)  # all six: no file left
    assert encoder_layers(tmp_path) is None
