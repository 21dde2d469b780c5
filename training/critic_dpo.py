"""The local critic: LoRA + TRL ``DPOTrainer`` on the committed preference pairs.

Pairs are conversational (system + user prompt, assistant review) so training and inference use the
same chat template (``core.prompts.local_critic.critic_messages``). With a ``peft_config`` and no
``ref_model``, TRL uses the base with the adapter disabled as the frozen reference; β sets the KL
strength. SmolLM2-135M on CPU for a handful of steps, or a local model on CUDA in 4-bit NF4.
The same trainer trains the ReAct critical-step policy on its pairs (``paperpilot train react``), with
that policy's own system line (``core.prompts.local_critic.preference_messages``).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

from core.prompts.local_critic import preference_messages
from training.data.generate_critic import TRAIN_FILE
from training.data.generate_router import read_jsonl
from training.router_sft import load_base_for_training, lora_config, trainer_precision

CRITIC_META_FILE = "critic_meta.json"


@dataclass
class CriticTrainConfig:
    base: str = "smollm2"
    out: Path | None = None
    data: Path = TRAIN_FILE
    seed: int = 17
    max_steps: int | None = None  # None = one epoch
    beta: float = 0.1
    batch_size: int = 2
    lr: float = 5e-5
    rank: int = 16
    alpha: int = 32
    max_length: int = 512
    limit: int | None = None


def dpo_rows(rows: list[dict]) -> list[dict]:
    """Data rows → TRL conversational preference examples (extra columns dropped); critic rows get
    the critic's system line, ReAct critical-step rows (``decision_point``) the step policy's."""
    return [{"prompt": preference_messages(r),
             "chosen": [{"role": "assistant", "content": r["chosen"]}],
             "rejected": [{"role": "assistant", "content": r["rejected"]}]} for r in rows]


def train_critic_dpo(cfg: CriticTrainConfig, log=print) -> dict:
    """Run DPO, save the adapter and ``critic_meta.json`` to ``cfg.out``, return a summary."""
    from datasets import Dataset
    from trl import DPOConfig, DPOTrainer

    if cfg.out is None:
        raise ValueError("an output folder is required")
    if cfg.beta <= 0:
        raise ValueError("beta must be positive")
    rows = read_jsonl(cfg.data)[: cfg.limit] if cfg.limit else read_jsonl(cfg.data)
    model, tokenizer, quantized = load_base_for_training(cfg.base)
    args = DPOConfig(
        output_dir=str(cfg.out), seed=cfg.seed, beta=cfg.beta, max_steps=cfg.max_steps or -1,
        num_train_epochs=1, per_device_train_batch_size=cfg.batch_size, learning_rate=cfg.lr,
        max_length=cfg.max_length, logging_steps=1, save_strategy="no", report_to="none",
        dataloader_num_workers=0, disable_tqdm=True, **trainer_precision(),
    )
    trainer = DPOTrainer(model=model, ref_model=None, args=args, train_dataset=Dataset.from_list(dpo_rows(rows)),
                         processing_class=tokenizer, peft_config=lora_config(cfg.rank, cfg.alpha))
    t0 = time.perf_counter()
    result = trainer.train()
    seconds = time.perf_counter() - t0
    logs = [h for h in trainer.state.log_history if "loss" in h]
    out = Path(cfg.out)
    trainer.model.save_pretrained(str(out))
    (out / "README.md").unlink(missing_ok=True)
    name = "react-dpo" if rows and "decision_point" in rows[0] else "critic-dpo"
    meta = {"name": name, "base": cfg.base, "beta": cfg.beta, "seed": cfg.seed,
            "steps": int(result.global_step), "examples": len(rows), "quantized_4bit": quantized,
            "train_loss": round(float(result.training_loss), 4), "train_seconds": round(seconds, 1),
            "last_log": logs[-1] if logs else {}, "data": Path(cfg.data).name}
    (out / CRITIC_META_FILE).write_text(json.dumps(meta, indent=2, default=str) + "\n", encoding="utf-8")
    log(f"{name}: {meta['steps']} steps in {seconds:.0f}s, loss {meta['train_loss']} → {out}")
    return {**meta, "out": str(out)}
