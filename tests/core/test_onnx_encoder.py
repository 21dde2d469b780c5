"""The ONNX encoder gives the torch encoder's vectors, caches its graph, and keeps the mask honest.

The graph is built (without torch, about 2 s) once per test run into the shared
``PAPERPILOT_ONNX_CACHE`` set by tests/conftest.py; every later use loads the cached file.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from core import embeddings, onnx_runtime
from core.hub.chunking import chunk_blocks
from core.hub.ingest import CORPUS_DIR
from core.hub.readers import read_document
from tests.support.extras import needs

pytestmark = pytest.mark.slow

SHORT = ["What rank does LoRA use by default?", "DPO", "", "比较 LoRA 和 QLoRA 的显存占用",
         "how does reflexion use verbal feedback stored in episodic memory?"]


@pytest.fixture(scope="module")
def texts() -> list[str]:
    """Real hub chunks (as ingestion embeds them: breadcrumb + text) from three bundled notes,
    a text far past the 256-token truncation, and short queries."""
    out: list[str] = []
    for f in sorted(CORPUS_DIR.glob("*.md"))[:3]:
        out += [f"{c.breadcrumb}: {c.text}" for c in chunk_blocks(read_document(f).blocks)]
    long = " ".join(out)
    assert len(long.split()) > 600
    return out + [long] + SHORT


@pytest.fixture(scope="module")
def torch_vectors(texts) -> np.ndarray:
    return embeddings.encoder("torch").embed(texts)


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


@needs("train")
def test_onnx_vectors_match_torch_per_text(texts, torch_vectors):
    vecs = embeddings.encoder("onnx").embed(texts)
    assert vecs.shape == (len(texts), embeddings.DIM) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert cosines(vecs, torch_vectors).min() >= 0.9999


@needs("train")
def test_int8_vectors_stay_close_to_torch_on_corpus_chunks(texts, torch_vectors):
    """The opt-in int8 graph holds cosine ≥ 0.99 on real chunks; on degenerate inputs (the empty
    string) it drops to about 0.98, one reason it is not the default."""
    vecs = embeddings.encoder("onnx-int8").embed(texts)
    chunks = len(texts) - len(SHORT) - 1
    assert cosines(vecs[:chunks], torch_vectors[:chunks]).min() >= 0.99
    assert cosines(vecs, torch_vectors).mean() >= 0.99


def test_a_text_embeds_the_same_alone_and_padded_in_a_batch(texts):
    """The traced graph must honour the attention mask: padding never leaks into short texts."""
    enc = embeddings.encoder("onnx")
    alone = np.stack([enc.embed([t])[0] for t in SHORT])
    batched = enc.embed(texts, batch_size=len(texts))[-len(SHORT):]
    assert cosines(alone, batched).min() >= 0.99999


def test_a_turns_batch_runs_on_the_one_thread_session_with_the_same_vectors(texts):
    """``one_thread`` (a comparison's cells) runs a batch on the one-thread session, never starting the
    thread-per-core one, and the vectors are those of the batch session (bitwise on the machines measured)."""
    enc = onnx_runtime.OnnxEncoder(embeddings.encoder("onnx").path)
    alone = enc.embed(texts, one_thread=True)
    assert enc._big is None
    assert np.allclose(alone, enc.embed(texts), atol=1e-6)


def test_default_backend_is_onnx_and_one_instance_per_process(monkeypatch):
    monkeypatch.delenv("PAPERPILOT_ENCODER", raising=False)
    assert embeddings.backend() == "onnx"
    assert embeddings.encoder() is embeddings.encoder() is embeddings.encoder("onnx")
    assert embeddings.embed([]).shape == (0, embeddings.DIM)


def test_unknown_backend_is_refused(monkeypatch):
    monkeypatch.setenv("PAPERPILOT_ENCODER", "tensorflow")
    with pytest.raises(ValueError, match="PAPERPILOT_ENCODER"):
        embeddings.embed(["x"])


def test_export_is_cached_by_source_hash(tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERPILOT_ONNX_CACHE", str(tmp_path / "cache"))
    weights = tmp_path / "w.bin"
    weights.write_bytes(b"one")
    first = onnx_runtime.fingerprint([weights], "r1")
    assert onnx_runtime.fingerprint([weights], "r1") == first
    assert onnx_runtime.fingerprint([weights], "r2") != first  # a new export recipe → a new file
    weights.write_bytes(b"two")  # new weights (size or mtime differ) → rehashed → a new file
    assert onnx_runtime.fingerprint([weights], "r1") != first

    built: list[Path] = []
    out = tmp_path / "cache" / "g.onnx"
    onnx_runtime._ensure(out, lambda p: (built.append(p), p.write_bytes(b"graph")))
    onnx_runtime._ensure(out, lambda p: built.append(p))
    assert built == [out] and out.read_bytes() == b"graph"


def test_encoder_file_lives_in_the_cache_and_names_the_weights_hash():
    path = onnx_runtime.encoder_file()
    assert path.parent == onnx_runtime.cache_dir() and path.stat().st_size > 10_000_000
    src = onnx_runtime.minilm_dir()
    fp = onnx_runtime.fingerprint([src / "model.safetensors", src / "config.json"], onnx_runtime.ENCODER_RECIPE)
    assert path.name == f"minilm-{fp}.onnx"


def test_without_the_onnx_package_a_missing_graph_says_what_to_install(tmp_path, monkeypatch):
    import importlib.util

    monkeypatch.setenv("PAPERPILOT_ONNX_CACHE", str(tmp_path))
    cached = tmp_path / "cached.onnx"
    onnx_runtime._ensure(cached, lambda p: p.write_bytes(b"graph"))
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "onnx" else real(name, *a))
    with pytest.raises(onnx_runtime.ExportUnavailable, match="pip install onnx"):
        onnx_runtime._ensure(tmp_path / "missing.onnx", lambda p: None)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    assert onnx_runtime._ensure(cached, lambda p: None) == cached  # a cached, verified graph needs nothing
