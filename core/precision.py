"""Which encoder runtime and precision this process uses: fp32 ONNX, int8 ONNX or torch.

``PAPERPILOT_ENCODER=auto|onnx|onnx-int8|torch`` (an environment variable, so the hub's child
process follows its parent) picks one; the MiniLM encoder and the router's classifier both follow it.
``onnx`` forces fp32, ``onnx-int8`` forces int8. ``auto`` (the default) is int8 where the CPU has
VNNI (8-bit dot-product instructions: ``avx512_vnni`` or ``avx_vnni`` among ``/proc/cpuinfo``'s
flags), fp32 otherwise: without VNNI, ONNX Runtime's int8 MatMul multiplies u8×s8 pairs through
16-bit intermediates and gains little over fp32 (about 1.3× for one query and nothing for batches
on an AVX2 machine), while with VNNI it is about 2× on batches. Detection reads the flags once; no
instruction is executed to probe.

Kept dependency-free (no numpy, no onnxruntime) so start-up code can ask without loading either.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

BACKENDS = ("onnx", "onnx-int8", "torch")
ENV = "PAPERPILOT_ENCODER"
VNNI_FLAGS = frozenset({"avx512_vnni", "avx_vnni"})
# Measured on the dev sets (see the README's "int8 on VNNI"): True keeps int8 on by default there.
INT8_ON_VNNI = True


def requested() -> str:
    """The configured backend: ``auto`` or one of :data:`BACKENDS`; ValueError for anything else."""
    value = (os.environ.get(ENV) or "auto").strip().lower()
    if value not in ("auto", *BACKENDS):
        raise ValueError(f"{ENV}={value!r}: expected auto, onnx, onnx-int8 or torch")
    return value


def parse_flags(cpuinfo: str) -> frozenset[str]:
    """The CPU feature flags in a ``/proc/cpuinfo`` text (x86 ``flags``; ARM ``Features``)."""
    for line in cpuinfo.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() in ("flags", "Features"):
            return frozenset(value.split())
    return frozenset()


@functools.lru_cache(maxsize=1)
def cpu_flags() -> frozenset[str]:
    """This machine's CPU flags (empty where ``/proc/cpuinfo`` cannot be read: fp32 is then chosen)."""
    try:
        return parse_flags(Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return frozenset()


def has_vnni(flags: frozenset[str] | None = None) -> bool:
    return bool(VNNI_FLAGS & (cpu_flags() if flags is None else flags))


def auto_backend(flags: frozenset[str] | None = None) -> str:
    """What ``auto`` means on a machine with ``flags`` (default: this one's) and onnxruntime installed."""
    return "onnx-int8" if INT8_ON_VNNI and has_vnni(flags) else "onnx"


def resolved(flags: frozenset[str] | None = None) -> str:
    """The backend this process will use, without loading it: ``auto`` made concrete.

    (``auto`` also falls back to torch when the ONNX graph cannot be had; that is only known on load.)
    """
    want = requested()
    if want != "auto":
        return want
    import importlib.util

    if importlib.util.find_spec("onnxruntime") is None:
        return "torch"
    return auto_backend(flags)


def int8(flags: frozenset[str] | None = None) -> bool:
    """Whether ONNX graphs (the encoder and the router's classifier) run int8 in this process."""
    return resolved(flags) == "onnx-int8"
