"""The reader: a cross-encoder that reads the question and a candidate sentence together.

The sentence scorer (:mod:`core.brains.offline.scorer`) ranks candidates by declarative features of
the pair; it cannot tell that "how long did the manual checks take" is answered by "our manual
evaluations took weeks" rather than by a sentence that repeats "manual" and "checks". The reader is
all-MiniLM-L6-v2 with a LoRA adapter and a linear head over the masked mean of its last hidden states
(the router's network, :mod:`core.models.minilm_classifier`), fed "[CLS] question [SEP] sentence
[SEP]", trained by ``python -m training.reader_train`` on the scorer's generated groups (never
evaluation text) and run on ONNX Runtime (:func:`core.onnx_runtime.router_file` builds and caches
its graph; no torch at run time).

:func:`rescore` blends it into the scorer's probabilities: ``sigmoid(logit(p) + w · reader)``, with
``w`` the blend weight chosen on the generated held-out groups (``reader.json`` beside the adapter).
When the adapter or the encoder is missing, the scorer's probabilities are returned unchanged and
one line says so on stderr.
"""

from __future__ import annotations

import json
import math
import sys
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple
from collections.abc import Callable

READER_DIR = Path(__file__).resolve().parents[2] / "models" / "adapters" / "reader"
_lock = threading.Lock()
_cache: dict[tuple[str, str], float] = {}
_MAX_CACHED = 20000
# How many of the scorer's best candidates the reader reads. On the generated held-out groups the
# answering sentence is among the scorer's first 5 in 95% of them (first 8: 98%, first 3: 93%) and
# the blend's top-1 is the same with 4 to 8 read (0.805; 0.809 with 3). On the abstract dev set 5
# and 8 give the same answers but 3 loses two of the reader's gains, so 5: 5/8 of the pairs.
# `python bench/agent.py --reader-only` measures a turn's cost.
SHORTLIST = 5
_warned: list[str] = []


class Reader(NamedTuple):
    """The shipped reader, from one read of ``reader.json``."""

    classifier: Any  # the ONNX graph
    weight: float  # the blend weight
    share: float | None  # the direct answer's share for blended scores
    skip_above: float | None  # the scorer's probability from which the reader is not run


@lru_cache(maxsize=1)
def _model() -> Reader | None:
    """The shipped reader, or None (said once) when it cannot run."""
    try:
        meta = json.loads((READER_DIR / "reader.json").read_text(encoding="utf-8"))
        from core.onnx_runtime import OnnxClassifier, router_file

        share = meta.get("lead", {}).get("share")
        skip = meta.get("skip", {}).get("skip_above")
        return Reader(OnnxClassifier(router_file(READER_DIR, 1), max_length=int(meta["max_length"])),
                      float(meta["blend_weight"]), None if share is None else float(share),
                      None if skip is None else float(skip))
    except (ImportError, OSError, RuntimeError, ValueError, KeyError, AttributeError) as exc:
        if not _warned:
            _warned.append(str(exc))
            print(f"paperpilot: the reader is unavailable ({type(exc).__name__}: {exc}); sentences are ranked "
                  "by the sentence scorer alone", file=sys.stderr)
        return None


def lead_share() -> float | None:
    """The direct answer's share for blended scores (``lead.share`` in ``reader.json``, calibrated by
    ``training.reader_train`` as :mod:`training.scorer_lead` calibrates the scorer's); None when the
    reader does not run, so the scorer's own share applies."""
    m = _model()
    return m.share if m else None


def logits(question: str, texts: list[str]) -> list[float] | None:
    """The reader's logit for each (question, text) pair (cached), or None when it cannot run."""
    m = _model()
    if m is None:
        return None
    clf = m.classifier
    missing = list(dict.fromkeys(t for t in texts if (question, t) not in _cache))
    if missing:
        out = clf.logits([(question, t) for t in missing])[:, 0]
        with _lock:
            if len(_cache) + len(missing) > _MAX_CACHED:
                _cache.clear()
            _cache.update({(question, t): float(v) for t, v in zip(missing, out)})
    return [_cache[(question, t)] for t in texts]


def rescore(question: str, texts: list[str], probs: list[float], shortlist: int = SHORTLIST, *,
            read: tuple[Callable[[str, list[str]], list[float]], float] | None = None,
            skip_above: float | None = None) -> list[float]:
    """The scorer's probabilities ``probs`` for ``texts`` blended with the reader's reading of each
    (``read``: a logits function and its blend weight; default the shipped reader's, with its
    ``skip_above``).

    Only the scorer's ``shortlist`` best are read (a pair costs the encoder about 18 ms of one core
    here); the others keep an order below all of them, so a direct answer is chosen among the read
    ones. When the scorer's best is at least ``skip_above``, nothing is read and ``probs`` come back
    as they are (the same list values): on the generated held-out groups the reader seldom overturns
    so confident a pick (``skip`` in ``reader.json``, chosen by ``training.reader_train``)."""
    if read is None:
        m = _model()
        if m is None:
            return list(probs)
        read, skip_above = (logits, m.weight), m.skip_above
    read_fn, weight = read
    if not texts or weight == 0.0 or (skip_above is not None and max(probs) >= skip_above):
        return list(probs)
    best = sorted(range(len(texts)), key=lambda i: -probs[i])[:shortlist]
    got = read_fn(question, [texts[i] for i in best])
    if got is None:
        return list(probs)
    out = list(probs)
    for i, r in zip(best, got):
        p = min(max(probs[i], 1e-6), 1 - 1e-6)
        z = math.log(p / (1 - p)) + weight * r
        out[i] = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
    rest = [i for i in range(len(texts)) if i not in set(best)]
    if rest:  # below every read sentence, in the scorer's order
        floor, top = 0.999 * min(out[i] for i in best), max(probs[i] for i in rest)
        if top > floor:
            for i in rest:
                out[i] = probs[i] * floor / top
    return out
