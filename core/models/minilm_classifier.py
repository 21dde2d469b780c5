"""MiniLM + LoRA + a linear head over mean-pooled tokens: the router's network.

all-MiniLM-L6-v2 was trained for mean pooling, so the head reads the masked mean of the last hidden
states (not the [CLS] pooler), which transfers far better to unseen phrasings. The adapter folder
holds PEFT's LoRA files (query/key/value) and ``classifier_head.safetensors``. Imports torch at
module level: import this module lazily (``core.models.router`` does).
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import torch

from core.models.manager import minilm_dir, offline_env

HEAD_FILE = "classifier_head.safetensors"
LORA_TARGETS = ["query", "key", "value"]


class MeanPoolClassifier(torch.nn.Module):
    """encoder → masked mean → dropout → linear; ``forward`` returns ``.logits`` (and ``.loss``)."""

    def __init__(self, encoder: Any, num_labels: int, dropout: float = 0.1) -> None:
        super().__init__()
        self.encoder = encoder
        self.dropout = torch.nn.Dropout(dropout)
        self.head = torch.nn.Linear(encoder.config.hidden_size, num_labels)

    def forward(self, input_ids, attention_mask, token_type_ids=None, labels=None) -> SimpleNamespace:
        hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state
        mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)
        logits = self.head(self.dropout(pooled))
        loss = torch.nn.functional.cross_entropy(logits, labels) if labels is not None else None
        return SimpleNamespace(logits=logits, loss=loss)


def _encoder() -> tuple[Any, Any]:
    offline_env()
    from transformers import AutoModel, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    base = minilm_dir()
    return AutoModel.from_pretrained(base), AutoTokenizer.from_pretrained(base)


def new_classifier(num_labels: int, *, rank: int, alpha: int, dropout: float) -> tuple[MeanPoolClassifier, Any]:
    """A trainable classifier: LoRA on the encoder's attention, a fresh head (seed torch first)."""
    from peft import LoraConfig, get_peft_model

    encoder, tokenizer = _encoder()
    lora = LoraConfig(r=rank, lora_alpha=alpha, lora_dropout=dropout, target_modules=LORA_TARGETS)
    return MeanPoolClassifier(get_peft_model(encoder, lora), num_labels), tokenizer


def save_classifier(model: MeanPoolClassifier, out_dir: Path) -> None:
    from safetensors.torch import save_file

    model.encoder.save_pretrained(str(out_dir))
    save_file({k: v.detach().contiguous() for k, v in model.head.state_dict().items()}, str(out_dir / HEAD_FILE))


def load_classifier(adapter_dir: Path, num_labels: int) -> tuple[MeanPoolClassifier, Any]:
    """Base encoder + LoRA (merged for speed) + head, in eval mode."""
    from peft import PeftModel
    from safetensors.torch import load_file

    encoder, tokenizer = _encoder()
    encoder = PeftModel.from_pretrained(encoder, str(adapter_dir)).merge_and_unload()
    model = MeanPoolClassifier(encoder, num_labels)
    model.head.load_state_dict(load_file(str(adapter_dir / HEAD_FILE)))
    model.eval()
    return model, tokenizer
