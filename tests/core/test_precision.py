"""The int8 encoder on a CPU with VNNI, fp32 without; either forced by PAPERPILOT_ENCODER; the int8
graph cached once per user like the fp32 one; the router fp32 throughout.

The CPU flags are injected (``precision.cpu_flags``); the encoders, the router graph and the caches
are the real ones.
"""

from __future__ import annotations

import numpy as np
import pytest

from core import embeddings, onnx_cache, onnx_runtime, precision
from core.hub import bundled_cache
from core.models.manager import SHIPPED_ROUTER

ZEN4 = "processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu sse2 avx2 avx512f avx512_vnni avx512_bf16\n"
ALDER_LAKE = "processor\t: 0\nflags\t\t: fpu sse2 avx2 avx_vnni\n"
HASWELL = "processor\t: 0\nflags\t\t: fpu sse2 avx avx2 fma\n"
GRAVITON = "processor\t: 0\nFeatures\t: fp asimd asimddp\n"


@pytest.fixture
def flags(monkeypatch):
    """Set this process's CPU flags from a /proc/cpuinfo text; a fresh encoder table."""
    monkeypatch.delenv("PAPERPILOT_ENCODER", raising=False)
    monkeypatch.setattr(embeddings, "_encoders", {})

    def use(cpuinfo: str) -> frozenset[str]:
        parsed = precision.parse_flags(cpuinfo)
        monkeypatch.setattr(precision, "cpu_flags", lambda: parsed)
        return parsed

    return use


def test_vnni_is_read_from_the_cpu_flags():
    assert precision.has_vnni(precision.parse_flags(ZEN4))
    assert precision.has_vnni(precision.parse_flags(ALDER_LAKE))
    assert not precision.has_vnni(precision.parse_flags(HASWELL))
    assert not precision.has_vnni(precision.parse_flags(GRAVITON))
    assert not precision.has_vnni(precision.parse_flags(""))  # unreadable /proc/cpuinfo: fp32
    assert isinstance(precision.cpu_flags(), frozenset)


def test_the_default_is_fp32_even_with_vnni(flags):
    """int8 is not on by default: it moved the dense leg's recall@5 by more than 0.01 (core.precision)."""
    flags(ZEN4)
    assert not precision.INT8_ON_VNNI
    assert precision.resolved() == "onnx" and embeddings.encoder().name == "onnx"


def test_auto_is_int8_with_vnni_and_fp32_without_once_switched_on(flags, monkeypatch):
    monkeypatch.setattr(precision, "INT8_ON_VNNI", True)
    flags(ZEN4)
    assert precision.resolved() == "onnx-int8" and precision.int8()
    enc = embeddings.encoder()
    assert enc.name == "onnx-int8" and enc.path.name.endswith("-int8.onnx")
    int8_vec = embeddings.embed(["How does LoRA cut the number of trained parameters?"])[0]

    flags(HASWELL)
    embeddings._encoders.clear()
    assert precision.resolved() == "onnx" and not precision.int8()
    enc = embeddings.encoder()
    assert enc.name == "onnx" and not enc.path.name.endswith("-int8.onnx")
    fp32_vec = embeddings.embed(["How does LoRA cut the number of trained parameters?"])[0]
    # two different graphs, both giving the sentence's unit vector
    assert not np.array_equal(int8_vec, fp32_vec) and float(int8_vec @ fp32_vec) > 0.98


def test_the_environment_forces_either_precision(flags, monkeypatch):
    flags(ZEN4)
    monkeypatch.setenv("PAPERPILOT_ENCODER", "onnx")
    assert precision.resolved() == "onnx" and embeddings.encoder().name == "onnx"
    flags(HASWELL)
    monkeypatch.setenv("PAPERPILOT_ENCODER", "onnx-int8")
    assert precision.int8() and embeddings.encoder().name == "onnx-int8"


def test_the_router_stays_fp32_and_its_int8_twin_is_built_only_on_request(flags, monkeypatch):
    monkeypatch.setattr(precision, "INT8_ON_VNNI", True)
    flags(ZEN4)
    assert precision.int8()
    fp32 = onnx_runtime.router_file(SHIPPED_ROUTER)
    assert not fp32.name.endswith("-int8.onnx")
    monkeypatch.setenv("PAPERPILOT_ENCODER", "onnx-int8")
    assert onnx_runtime.router_file(SHIPPED_ROUTER) == fp32
    int8 = onnx_runtime.router_file(SHIPPED_ROUTER, quantized=True)
    assert int8.name.endswith("-int8.onnx") and int8.parent == fp32.parent == onnx_runtime.cache_dir()
    assert int8.stat().st_size < 0.8 * fp32.stat().st_size  # int8 MatMul weights; embeddings and FFN outputs stay fp32


def test_the_bundled_index_key_names_the_precision_not_auto(flags, monkeypatch):
    """fp32 and int8 vectors differ: a bundled-notes index built with one is never copied for the other."""
    monkeypatch.setattr(precision, "INT8_ON_VNNI", True)
    flags(ZEN4)
    auto_vnni = bundled_cache.key()
    monkeypatch.setenv("PAPERPILOT_ENCODER", "onnx-int8")
    assert bundled_cache.key() == auto_vnni
    monkeypatch.setenv("PAPERPILOT_ENCODER", "onnx")
    fp32 = bundled_cache.key()
    monkeypatch.delenv("PAPERPILOT_ENCODER")
    flags(HASWELL)
    assert bundled_cache.key() == fp32 != auto_vnni


@pytest.mark.slow  # builds and quantizes both graphs in an empty cache
def test_the_int8_graph_is_built_once_per_user_and_shared_by_every_data_dir(tmp_path, monkeypatch):
    from core.models import onnx_export

    monkeypatch.delenv("PAPERPILOT_ONNX_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("PAPERPILOT_HOME", str(tmp_path / "home1"))
    first = onnx_runtime.encoder_file(quantized=True)
    assert first.parent == tmp_path / "xdg" / "paperpilot" / "onnx"
    assert (first.parent / (first.name + ".sha256")).read_text().strip() == onnx_cache.file_digest(first)
    stamp = first.stat().st_mtime_ns

    def no_second_build(src, out):
        raise AssertionError(f"int8 graph quantized again into {out}")

    monkeypatch.setattr(onnx_export, "quantize", no_second_build)
    monkeypatch.setenv("PAPERPILOT_HOME", str(tmp_path / "home2"))
    assert onnx_runtime.encoder_file(quantized=True) == first and first.stat().st_mtime_ns == stamp
    for home in ("home1", "home2"):
        assert not list((tmp_path / home).rglob("*.onnx"))  # no copy in any data dir

    first.write_bytes(first.read_bytes()[:-10])  # a damaged cached file is rebuilt, not run
    monkeypatch.undo()
    monkeypatch.delenv("PAPERPILOT_ONNX_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("PAPERPILOT_HOME", str(tmp_path / "home2"))
    assert onnx_runtime.encoder_file(quantized=True) == first
    assert (first.parent / (first.name + ".sha256")).read_text().strip() == onnx_cache.file_digest(first)
