"""The local LoRA intent router: MiniLM sequence classifier + LoRA adapter + trained head.

``core.prompts.local_router.format_router_input`` is the one place that turns (question, history)
into model text, used by training and inference alike. An adapter folder holds PEFT's ``adapter_config.json`` and
``adapter_model.safetensors`` (LoRA on query/key/value), ``classifier_head.safetensors`` (a linear
head over mean-pooled tokens, see ``core.models.minilm_classifier``) and ``label_map.json``. Confidence is the softmax over the label
logits. Loading imports torch/peft lazily and may run in a worker thread; ``classify`` runs the
forward pass in a thread so the event loop never blocks.

``classify`` is, when the adapter carries a fitted ``combiner`` (``core.models.router_combiner``), a learned
decision over the model's and the rule router's distributions followed by the conversation signals;
otherwise the model combined with cheap conversation signals and a confidence fallback to the
rule router (``core.brains.routing.combine``; the threshold is calibrated on the held-out split and
stored in the adapter's ``label_map.json`` as ``fallback_threshold``, next to the softmax
``temperature`` fitted on the same split); ``model_sync`` is the model alone. The decision's ``router`` field says which path decided: ``lora:minilm``, ``lora:minilm+cue``
or ``lora:minilm→rules (p=0.41)``.
"""

from __future__ import annotations

import asyncio
import json
import math
import threading
from pathlib import Path
from typing import Any

from core.types import RouteDecision, Turn
from core.models.manager import SHIPPED_ROUTER, LocalModelManager, ModelNotAvailable
from core.models.router_combiner import Combiner, features
from core.prompts.local_router import format_router_input
from core.types import INTENT_TYPES
from core.vocabulary import Vocabulary

LABEL_MAP_FILE = "label_map.json"


class LoRARouter:
    """Classify intent with a loaded sequence classifier; thread-safe, CPU by default."""

    runtime = "torch"
    combiner: Combiner | None = None  # the learned decision over adapter + rules, when the adapter has one
    vocabulary: Vocabulary = Vocabulary()  # the collection's names, for the rule router's features (use_vocabulary)

    def __init__(self, model: Any, tokenizer: Any, labels: list[str], *, name: str = "lora:minilm",
                 max_length: int = 128, extra_chars: str = "", threshold: float | None = None,
                 temperature: float | None = None) -> None:
        from core.brains.routing import FALLBACK_THRESHOLD
        from core.models.minilm_classifier import CharVocab

        self.model = model
        self.tokenizer = tokenizer
        self.chars = CharVocab(tokenizer, extra_chars)
        self.labels = list(labels)
        self.name = name
        self.max_length = max_length
        self.threshold = FALLBACK_THRESHOLD if threshold is None else float(threshold)
        self.temperature = float(temperature or 1.0)  # softmax temperature, fitted on the held-out split
        self._lock = threading.Lock()

    def use_vocabulary(self, vocabulary: Vocabulary) -> None:
        """The collection's vocabulary, which the rule router below the model reads names from."""
        self.vocabulary = vocabulary

    def logits(self, texts: list[str]) -> list[list[float]]:
        """Raw label logits for each text (synchronous)."""
        import torch

        enc = self.chars.encode(self.tokenizer, texts, self.max_length)
        with self._lock, torch.inference_mode():
            return self.model(**enc).logits.float().tolist()

    def probabilities(self, texts: list[str]) -> list[list[float]]:
        """Softmax over the label logits divided by the temperature, for each text (synchronous)."""
        return [softmax(row, self.temperature) for row in self.logits(texts)]

    def model_sync(self, question: str, history: list[Turn]) -> RouteDecision:
        """The model's own decision: argmax of the softmax, no signals, no fallback."""
        probs = self.probabilities([format_router_input(question, history)])[0]
        scores = {label: round(p, 4) for label, p in zip(self.labels, probs)}
        best = max(range(len(probs)), key=probs.__getitem__)
        return RouteDecision(type=self.labels[best], confidence=min(1.0, max(0.0, probs[best])),  # type: ignore[arg-type]
                             router=self.name, scores=scores)

    def classify_sync(self, question: str, history: list[Turn]) -> RouteDecision:
        """The final route: with a fitted ``combiner``, its decision over the model and the rule router, then
        the conversation signals; without one, the model with the signals and the rule router below the
        confidence threshold."""
        from core.brains.routing import combine

        model = self.model_sync(question, history)
        if self.combiner is None or not self.combiner.decides(question):
            return combine(model, question, history,
                           fallback=lambda: rule_decision(question, history, self.vocabulary),
                           threshold=self.threshold)
        rules = rule_decision(question, history, self.vocabulary)
        scores = self.combiner.scores(features(model.scores, rules.scores, self.labels, question), self.labels)
        best = max(scores, key=scores.get)
        learned = RouteDecision(type=best, confidence=scores[best], router=f"{self.name}+rules",  # type: ignore[arg-type]
                                scores=scores)
        return combine(learned, question, history)

    async def classify(self, question: str, history: list[Turn]) -> RouteDecision:
        return await asyncio.to_thread(self.classify_sync, question, history)


class OnnxLoRARouter(LoRARouter):
    """The same router on ONNX Runtime (LoRA merged into the exported graph): no torch, no transformers."""

    runtime = "onnx"

    def __init__(self, classifier: Any, labels: list[str], *, name: str = "lora:minilm", max_length: int = 128,
                 threshold: float | None = None, temperature: float | None = None) -> None:
        from core.brains.routing import FALLBACK_THRESHOLD

        self.model = classifier
        self.tokenizer = None
        self.labels = list(labels)
        self.name = name
        self.max_length = max_length
        self.threshold = FALLBACK_THRESHOLD if threshold is None else float(threshold)
        self.temperature = float(temperature or 1.0)
        self._lock = threading.Lock()

    def logits(self, texts: list[str]) -> list[list[float]]:
        return self.model.logits(texts).astype(float).tolist()


def softmax(logits: list[float], temperature: float = 1.0) -> list[float]:
    top = max(logits)
    exps = [math.exp((x - top) / temperature) for x in logits]
    total = sum(exps)
    return [e / total for e in exps]


def rule_decision(question: str, history: list[Turn], vocab: Vocabulary) -> RouteDecision:
    """The offline brain's rule router (the low-confidence fallback), matching names from ``vocab``."""
    from core.brains.offline.router import classify

    intent, confidence, probs, _ = classify(question, bool(history), vocab)
    return RouteDecision(type=intent, confidence=confidence, router="rules", scores=probs)  # type: ignore[arg-type]


def read_label_map(adapter_dir: Path) -> dict:
    path = adapter_dir / LABEL_MAP_FILE
    if not (adapter_dir / "adapter_config.json").exists() or not path.exists():
        raise ModelNotAvailable(f"no router adapter at {adapter_dir} (adapter_config.json or {LABEL_MAP_FILE} missing)")
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelNotAvailable(f"router adapter at {adapter_dir}: unreadable {LABEL_MAP_FILE} ({exc})") from None
    labels = (meta.get("labels") or []) if isinstance(meta, dict) else []
    if sorted(labels) != sorted(INTENT_TYPES):
        raise ModelNotAvailable(f"router adapter at {adapter_dir} has labels {labels}, expected {list(INTENT_TYPES)}")
    return meta


def router_runtime() -> str:
    """``onnx`` or ``torch``: the router follows ``PAPERPILOT_ENCODER`` (see :mod:`core.embeddings`);
    ``auto`` and ``onnx-int8`` mean the fp32 ONNX graph when onnxruntime is installed."""
    import importlib.util

    from core.embeddings import requested

    want = requested()
    if want == "torch":
        return "torch"
    if want == "auto" and importlib.util.find_spec("onnxruntime") is None:
        return "torch"
    return "onnx"


def load_router_dir(adapter_dir: str | Path, *, threads: int = 1, runtime: str | None = None) -> LoRARouter:
    """Load an adapter folder onto the bundled MiniLM base; ModelNotAvailable on any failure.

    ``runtime``: ``onnx`` (the default, see :func:`router_runtime`) runs the exported graph with the
    LoRA merged, exported with torch once per adapter and cached; ``torch`` runs PEFT's merged model.
    With ``auto`` a failed ONNX load falls back to torch. One thread: a 6-layer encoder on one short
    question gains nothing from more, and on a busy machine extra threads only add synchronisation stalls.
    """
    adapter_dir = Path(adapter_dir).expanduser()
    meta = _check_adapter(adapter_dir)
    runtime = runtime or router_runtime()
    if runtime == "onnx":
        try:
            return _load_onnx(adapter_dir, meta)
        except Exception as exc:  # noqa: BLE001 - one line for the user; torch is the fallback
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
            from core.embeddings import requested

            if requested() == "onnx":
                raise ModelNotAvailable(f"cannot load router adapter {adapter_dir} on ONNX Runtime: {first}") from None
            import sys

            print(f"paperpilot: ONNX router unavailable ({first}); the router runs on torch", file=sys.stderr)
    return _load_torch(adapter_dir, meta, threads)


def _load_onnx(adapter_dir: Path, meta: dict) -> OnnxLoRARouter:
    from core.onnx_runtime import OnnxClassifier, router_file

    classifier = OnnxClassifier(router_file(adapter_dir, len(meta["labels"])),
                                max_length=int(meta.get("max_length", 128)), extra_chars=meta.get("extra_chars", ""))
    router = OnnxLoRARouter(classifier, meta["labels"], name=f"lora:{meta.get('name', 'minilm')}",
                            max_length=int(meta.get("max_length", 128)), threshold=meta.get("fallback_threshold"),
                            temperature=meta.get("temperature"))
    router.combiner = _combiner(adapter_dir, meta)
    router.probabilities(["warm-up question about LoRA?"])
    return router


def _combiner(adapter_dir: Path, meta: dict) -> Combiner | None:
    """The adapter's fitted combiner (``label_map.json`` → ``combiner``), or None when it has none."""
    if not meta.get("combiner"):
        return None
    try:
        return Combiner.from_dict(meta["combiner"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ModelNotAvailable(f"router adapter at {adapter_dir}: unreadable combiner ({exc})") from None


def _check_adapter(adapter_dir: Path) -> dict:
    meta = read_label_map(adapter_dir)
    if meta.get("base", "minilm") != "minilm":
        raise ModelNotAvailable(f"router adapter at {adapter_dir} is for base {meta.get('base')!r}; "
                                "only MiniLM classifiers are served as the router")
    if not (adapter_dir / "classifier_head.safetensors").exists():
        raise ModelNotAvailable(f"router adapter at {adapter_dir} has no classifier_head.safetensors")
    return meta


def _load_torch(adapter_dir: Path, meta: dict, threads: int) -> LoRARouter:
    try:
        import torch

        from core.models.minilm_classifier import load_classifier

        torch.set_num_threads(threads)
        model, tokenizer = load_classifier(adapter_dir, len(meta["labels"]))
    except ModelNotAvailable:
        raise
    except Exception as exc:  # noqa: BLE001 - one line for the user, fall back upstream
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise ModelNotAvailable(f"cannot load router adapter {adapter_dir}: {first[:200]}") from None
    router = LoRARouter(model, tokenizer, meta["labels"], name=f"lora:{meta.get('name', 'minilm')}",
                        max_length=int(meta.get("max_length", 128)), extra_chars=meta.get("extra_chars", ""),
                        threshold=meta.get("fallback_threshold"), temperature=meta.get("temperature"))
    router.combiner = _combiner(adapter_dir, meta)
    router.probabilities(["warm-up question about LoRA?"])  # first forward pass is slow; pay it at load
    return router


def load_router(settings: Any) -> LoRARouter:
    """The configured router adapter (``agent.router_model``) or the shipped one, loaded once."""
    configured = getattr(getattr(settings, "agent", None), "router_model", None)
    path = Path(configured).expanduser() if configured else SHIPPED_ROUTER
    return LocalModelManager.shared().get(f"router:{path.resolve()}", lambda: load_router_dir(path))
