"""The torch reference export of the encoder and the router (``train`` extra), and int8 quantization.

The runtime builds its graphs without torch (:mod:`core.models.onnx_build`); the exporters here trace
transformers' ``BertModel`` and the PEFT-merged router with torch, so the tests can check the built
graphs against them. ``python -m core.models.onnx_export`` fills the graph cache ahead of time (it
uses the runtime's builder, no torch).

Eager attention is used for tracing: the SDPA path decides on mask shapes with Python conditionals,
which a trace would freeze. The dummy batch holds a padded row, so the traced graph keeps the mask.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

OPSET = 17
INPUTS = ["input_ids", "attention_mask", "token_type_ids"]


def _dummy() -> tuple[Any, Any, Any]:
    import torch

    ids = torch.tensor([[101, 2023, 2003, 1037, 3231, 6251, 1012, 102],
                        [101, 2460, 102, 0, 0, 0, 0, 0]], dtype=torch.long)
    return ids, (ids != 0).long(), torch.zeros_like(ids)


def _export(module: Any, out: Path, output: str) -> None:
    """Trace ``module(input_ids, attention_mask, token_type_ids)`` into ``out`` (atomically)."""
    import warnings

    import torch

    out.parent.mkdir(parents=True, exist_ok=True)
    axes = {name: {0: "batch", 1: "tokens"} for name in INPUTS}
    axes[output] = {0: "batch", 1: "tokens"} if output == "last_hidden_state" else {0: "batch"}
    fd, tmp = tempfile.mkstemp(dir=out.parent, suffix=".onnx.tmp")
    os.close(fd)
    try:
        with warnings.catch_warnings(), torch.inference_mode():
            warnings.simplefilter("ignore")
            torch.onnx.export(module.eval(), _dummy(), tmp, input_names=INPUTS, output_names=[output],
                              dynamic_axes=axes, opset_version=OPSET, dynamo=False)
        os.replace(tmp, out)
    finally:
        Path(tmp).unlink(missing_ok=True)


def quantize(src: Path, out: Path) -> None:
    """int8 dynamic quantization of the MatMul weights (per channel), atomically into ``out``.

    The feed-forward output projections (``layer.N/output/dense``, whose inputs are GELU activations
    with long tails) stay fp32: quantizing them too brings the worst per-text cosine against fp32
    down to 0.98 on the corpora; without them it stays above 0.99. Embedding lookups stay fp32 too
    (quantizing the Gathers drops the mean cosine to 0.95), and so does anything outside the encoder
    (the router's classification head: 384 × labels, nothing to gain, and it makes the decision).
    """
    import logging

    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    names = [n.name for n in onnx.load(str(src), load_external_data=False).graph.node if n.op_type == "MatMul"]
    ffn_out = [n for n in names if "/output/dense/" in n and "/attention/" not in n]
    if not ffn_out:
        raise RuntimeError("int8 export: no feed-forward output MatMul found to keep in fp32 (graph names changed?)")
    keep = ffn_out + [n for n in names if not n.startswith("/encoder/")]

    fd, tmp = tempfile.mkstemp(dir=out.parent, suffix=".onnx.tmp")
    os.close(fd)
    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    root.setLevel(logging.ERROR)  # "consider pre-processing" advice on every call, via logging's root
    try:
        quantize_dynamic(str(src), tmp, weight_type=QuantType.QInt8, per_channel=True, op_types_to_quantize=["MatMul"],
                         nodes_to_exclude=keep)
        os.replace(tmp, out)
    finally:
        root.setLevel(level)
        for h in root.handlers[:]:  # quantize_dynamic's logging.warning() adds a root handler: take it back
            if h not in handlers:
                root.removeHandler(h)
        Path(tmp).unlink(missing_ok=True)


def _load_encoder(model_dir: str) -> Any:
    from core.models.manager import offline_env

    offline_env()
    from transformers import AutoModel
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    return AutoModel.from_pretrained(model_dir, attn_implementation="eager")


def export_encoder(model_dir: str, out: Path) -> None:
    """all-MiniLM-L6-v2's transformer → ``last_hidden_state`` graph."""
    import torch

    class Hidden(torch.nn.Module):
        def __init__(self, encoder: Any) -> None:
            super().__init__()
            self.encoder = encoder

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.encoder(input_ids=input_ids, attention_mask=attention_mask,
                                token_type_ids=token_type_ids).last_hidden_state

    _export(Hidden(_load_encoder(model_dir)), out, "last_hidden_state")


def export_router(adapter_dir: Path, num_labels: int, out: Path) -> None:
    """The router classifier (LoRA merged, head included) → ``logits`` graph."""
    import torch
    from peft import PeftModel
    from safetensors.torch import load_file

    from core.models.manager import minilm_dir
    from core.models.minilm_classifier import HEAD_FILE, MeanPoolClassifier

    encoder = PeftModel.from_pretrained(_load_encoder(minilm_dir()), str(adapter_dir)).merge_and_unload()
    model = MeanPoolClassifier(encoder, num_labels)
    model.head.load_state_dict(load_file(str(adapter_dir / HEAD_FILE)))

    class Logits(torch.nn.Module):
        def __init__(self, inner: MeanPoolClassifier) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.inner(input_ids, attention_mask, token_type_ids).logits

    _export(Logits(model), out, "logits")


def main(argv: list[str] | None = None) -> int:
    import argparse

    from core import onnx_runtime

    ap = argparse.ArgumentParser(description="Build the bundled MiniLM encoder and the shipped router as ONNX graphs "
                                 "(into the cache, or under --cache); no torch needed.")
    ap.add_argument("--cache", help="cache folder (default: $PAPERPILOT_ONNX_CACHE or $PAPERPILOT_HOME/models/onnx)")
    a = ap.parse_args(argv)
    if a.cache:
        os.environ["PAPERPILOT_ONNX_CACHE"] = a.cache
    print(onnx_runtime.encoder_file())
    from core.models.manager import SHIPPED_ROUTER

    print(onnx_runtime.router_file(SHIPPED_ROUTER))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
