"""Which encoder runtime and precision this process uses: fp32 ONNX, int8 ONNX or torch.

``PAPERPILOT_ENCODER=auto|onnx|onnx-int8|torch`` (an environment variable, so the hub's child
process follows its parent) picks the MiniLM encoder's runtime (the router's classifier runs fp32
ONNX unless this is ``torch``). ``onnx`` forces fp32, ``onnx-int8`` forces int8. ``auto`` (the
default) picks int8 where the CPU has VNNI (8-bit dot-product instructions: ``avx512_vnni`` or
``avx_vnni`` among ``/proc/cpuinfo``'s flags) and fp32 elsewhere, once :data:`INT8_ON_VNNI` is on.
Without VNNI, ONNX Runtime's int8 MatMul gains little over fp32. Detection reads the flags once; no
instruction is executed to probe.

:data:`INT8_ON_VNNI` is off. Measured fp32 against int8 in the same runs on an AMD Zen 4 with AVX-512
VNNI, offline brain: ``eval qa`` gold is equal on both dev sets (abstracts 0.918, full text 0.493), as
are right document, abstention and routing, and hybrid recall@5 on the labelled queries (0.934); but
answer-first gold falls on both (abstracts 0.764 → 0.755, full text 0.301 → 0.274, two of 73
questions) and the dense leg alone loses one of 38 labelled queries (recall@5 0.776 → 0.750). That is
not "unchanged within 0.01", the bar for a default. Switching it on would also leave existing stores'
fp32 chunk vectors queried by int8 query vectors, a mix nothing has measured.
``PAPERPILOT_ENCODER=onnx-int8`` opts in (ingest then costs about 0.74× fp32's CPU per chunk).

Kept dependency-free (no numpy, no onnxruntime) so start-up code can ask without loading either.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

BACKENDS = ("onnx", "onnx-int8", "torch")
ENV = "PAPERPILOT_ENCODER"
VNNI_FLAGS = frozenset({"avx512_vnni", "avx_vnni"})
# int8 by default on VNNI CPUs: off, it moved answer-first gold and dense recall@5 by more than 0.01 (above).
INT8_ON_VNNI = False


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
    """Whether the encoder runs its int8 graph in this process."""
    return resolved(flags) == "onnx-int8"
