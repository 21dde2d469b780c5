"""Router as a causal LM: LoRA SFT with TRL ``SFTTrainer`` on SmolLM2 (CPU) or a local model (GPU, QLoRA).

Each example becomes a conversational prompt/completion pair: the user message is the instruction
plus ``format_router_input(question, history)``, the assistant message is the label. Loss is on
the completion only. On CUDA the base is loaded 4-bit NF4 with double quantization and bf16
compute (QLoRA); on CPU in fp32. :class:`CausalRouter` serves the result with a real confidence:
the softmax over the five labels' sequence log-likelihoods.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.brains.base import RouteDecision, Turn
from core.models.router import LABEL_MAP_FILE
from core.prompts.local_router import format_router_input, turns_from_chat
from core.state import INTENT_TYPES
from training.data.generate_router import TRAIN_FILE, read_jsonl

LABELS = list(INTENT_TYPES)
INSTRUCTION = ("Classify the research question into one intent: factual, comparative, multi_hop, "
               "exploratory or follow_up. Reply with the intent only.\n\n")


@dataclass
class SFTRouterConfig:
    base: str = "smollm2"
    out: Path | None = None
    data: Path = TRAIN_FILE
    seed: int = 13
    max_steps: int | None = None  # None = one epoch
    batch_size: int = 8
    lr: float = 2e-4
    rank: int = 16
    alpha: int = 32
    max_length: int = 256
    limit: int | None = None


def router_messages(question: str, history: list[Turn]) -> list[dict]:
    return [{"role": "user", "content": INSTRUCTION + format_router_input(question, history)}]


def sft_rows(rows: list[dict]) -> list[dict]:
    """Data rows → TRL conversational prompt/completion examples."""
    return [{"prompt": router_messages(r["question"], turns_from_chat(r.get("history", []))),
             "completion": [{"role": "assistant", "content": r["label"]}]} for r in rows]


def lora_config(rank: int, alpha: int) -> Any:
    from peft import LoraConfig, TaskType

    return LoraConfig(task_type=TaskType.CAUSAL_LM, r=rank, lora_alpha=alpha, lora_dropout=0.05,
                      target_modules=["q_proj", "v_proj"])


def trainer_precision() -> dict:
    """bf16 on CUDA, plain fp32 on CPU."""
    from core.models.manager import cuda_available

    return {"bf16": True} if cuda_available() else {"use_cpu": True, "bf16": False}


def load_base_for_training(base: str) -> tuple[Any, Any, bool]:
    """(model, tokenizer, quantized): 4-bit on CUDA (prepared for k-bit training), fp32 on CPU."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from core.models.manager import cuda_available, loadable, offline_env, plain_after_gguf

    offline_env()
    quantize = cuda_available()
    folder, extra, precision = loadable(base, quantize)
    tokenizer = AutoTokenizer.from_pretrained(folder, **extra)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(folder, **extra, **precision)
    if extra:
        plain_after_gguf(model)
    if quantize:
        from peft import prepare_model_for_kbit_training

        model = prepare_model_for_kbit_training(model)
    return model, tokenizer, quantize


def train_router_sft(cfg: SFTRouterConfig, log=print) -> dict:
    """Fine-tune, save the adapter + label map to ``cfg.out``, return a summary."""
    from datasets import Dataset
    from trl import SFTConfig, SFTTrainer

    if cfg.out is None:
        raise ValueError("an output folder is required")
    rows = read_jsonl(cfg.data)[: cfg.limit] if cfg.limit else read_jsonl(cfg.data)
    model, tokenizer, quantized = load_base_for_training(cfg.base)
    args = SFTConfig(
        output_dir=str(cfg.out), seed=cfg.seed, max_steps=cfg.max_steps or -1, num_train_epochs=1,
        per_device_train_batch_size=cfg.batch_size, learning_rate=cfg.lr, warmup_steps=0,
        logging_steps=5, save_strategy="no", report_to="none", max_length=cfg.max_length,
        completion_only_loss=True, dataloader_num_workers=0, disable_tqdm=True, **trainer_precision(),
    )
    trainer = SFTTrainer(model=model, args=args, train_dataset=Dataset.from_list(sft_rows(rows)),
                         processing_class=tokenizer, peft_config=lora_config(cfg.rank, cfg.alpha))
    t0 = time.perf_counter()
    result = trainer.train()
    seconds = time.perf_counter() - t0
    out = Path(cfg.out)
    trainer.model.save_pretrained(str(out))
    meta = {"name": f"sft-{Path(cfg.base).name if cfg.base not in ('smollm2',) else 'smollm2'}", "base": cfg.base,
            "kind": "causal_lm", "labels": LABELS, "instruction": INSTRUCTION, "seed": cfg.seed,
            "steps": int(result.global_step), "examples": len(rows), "quantized_4bit": quantized,
            "train_loss": round(float(result.training_loss), 4), "train_seconds": round(seconds, 1)}
    (out / LABEL_MAP_FILE).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    log(f"router-sft: {meta['steps']} steps in {seconds:.0f}s, loss {meta['train_loss']} → {out}")
    return {**meta, "out": str(out)}


class CausalRouter:
    """Serve an SFT router: score each label as a completion, softmax over their log-likelihoods."""

    def __init__(self, model: Any, tokenizer: Any, labels: list[str], name: str) -> None:
        self.model, self.tokenizer, self.labels, self.name = model, tokenizer, labels, name

    def probabilities(self, question: str, history: list[Turn]) -> list[float]:
        import torch

        prompt = self.tokenizer.apply_chat_template(router_messages(question, history), tokenize=False,
                                                    add_generation_prompt=True)
        p_ids = self.tokenizer(prompt, add_special_tokens=False)["input_ids"]
        seqs = [p_ids + self.tokenizer(label, add_special_tokens=False)["input_ids"] for label in self.labels]
        width = max(map(len, seqs))
        # a base loaded straight from its folder has no pad token: any id will do, padded positions are masked
        pad = next((t for t in (self.tokenizer.pad_token_id, self.tokenizer.eos_token_id) if t is not None), 0)
        device = getattr(self.model, "device", None)  # a 4-bit model on CUDA takes CUDA inputs only
        ids = torch.tensor([s + [pad] * (width - len(s)) for s in seqs], device=device)
        mask = torch.tensor([[1] * len(s) + [0] * (width - len(s)) for s in seqs], device=device)
        with torch.inference_mode():
            logp = torch.log_softmax(self.model(input_ids=ids, attention_mask=mask).logits.float(), dim=-1)
        scores = []
        for row, s in enumerate(seqs):
            scores.append(sum(float(logp[row, t - 1, s[t]]) for t in range(len(p_ids), len(s))))
        return torch.softmax(torch.tensor(scores), dim=0).tolist()

    def classify_sync(self, question: str, history: list[Turn]) -> RouteDecision:
        probs = self.probabilities(question, history)
        best = max(range(len(probs)), key=probs.__getitem__)
        return RouteDecision(type=self.labels[best], confidence=probs[best], router=self.name,  # type: ignore[arg-type]
                             scores={label: round(p, 4) for label, p in zip(self.labels, probs)})

    async def classify(self, question: str, history: list[Turn]) -> RouteDecision:
        return await asyncio.to_thread(self.classify_sync, question, history)


def load_causal_router(adapter_dir: str | Path) -> CausalRouter:
    from core.models.manager import load_causal_lm

    meta = json.loads((Path(adapter_dir) / LABEL_MAP_FILE).read_text(encoding="utf-8"))
    model, tokenizer = load_causal_lm(meta["base"], adapter=str(adapter_dir))
    return CausalRouter(model, tokenizer, meta["labels"], name=f"lora:{meta['name']}")
