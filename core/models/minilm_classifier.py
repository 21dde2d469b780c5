"""MiniLM + LoRA + a linear head over mean-pooled tokens: the router's network.

all-MiniLM-L6-v2 was trained for mean pooling, so the head reads the masked mean of the last hidden
states (not the [CLS] pooler), which transfers far better to unseen phrasings. The adapter folder
holds PEFT's LoRA files (query/key/value) and ``classifier_head.safetensors``. Imports torch at
module level: import this module lazily (``core.models.router`` does).

MiniLM's WordPiece vocabulary (bert-base-uncased) lacks most Chinese characters: in the router's
training data 245 of 293 distinct Han characters, over half of all Chinese tokens, come out as
``[UNK]`` — the model cannot tell 比较 from 什么. :class:`CharVocab` gives each such character seen in
training one of BERT's reserved ``[unusedN]`` rows, and PEFT's trainable tokens
(``trainable_token_indices``) learn exactly those rows next to the LoRA weights; the character list
travels in the adapter's ``label_map.json`` (``extra_chars``). Characters never seen in training
stay ``[UNK]``.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import torch

from core.models.manager import minilm_dir, offline_env
from core.models.onnx_build import LAYERS_FILE, encoder_layers

HEAD_FILE = "classifier_head.safetensors"
LORA_TARGETS = ["query", "key", "value"]


class CharVocab:
    """Characters the base vocabulary lacks, mapped in order onto its reserved ``[unusedN]`` ids."""

    def __init__(self, tokenizer: Any, chars: str = "") -> None:
        reserved = sorted((i for t, i in tokenizer.vocab.items() if t.startswith("[unused")))
        if len(chars) > len(reserved):
            raise ValueError(f"{len(chars)} extra characters but only {len(reserved)} reserved token ids")
        self.chars = chars
        self.ids = {ch: reserved[n] for n, ch in enumerate(chars)}
        self.unk_id = tokenizer.unk_token_id

    @classmethod
    def build(cls, tokenizer: Any, texts: list[str], limit: int | None = None) -> CharVocab:
        """The unknown characters of ``texts``, most frequent first (ties by code point)."""
        counts: dict[str, int] = {}
        for text in texts:
            enc = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
            for tid, (start, end) in zip(enc["input_ids"], enc["offset_mapping"]):
                if tid == tokenizer.unk_token_id and end - start == 1:
                    counts[text[start]] = counts.get(text[start], 0) + 1
        reserved = sum(1 for t in tokenizer.vocab if t.startswith("[unused"))
        ranked = sorted(counts, key=lambda ch: (-counts[ch], ord(ch)))[: min(limit or reserved, reserved)]
        return cls(tokenizer, "".join(ranked))

    def encode(self, tokenizer: Any, texts: list[str], max_length: int) -> dict[str, Any]:
        """Tokenize like ``tokenizer(...)`` (padded tensors), known extra characters remapped."""
        enc = tokenizer(texts, padding=True, truncation=True, max_length=max_length, return_tensors="pt",
                        return_offsets_mapping=bool(self.ids))
        if not self.ids:
            return dict(enc)
        offsets = enc.pop("offset_mapping")
        ids = enc["input_ids"]
        for row, col in (ids == self.unk_id).nonzero().tolist():
            start, end = offsets[row, col].tolist()
            new = self.ids.get(texts[row][start:end]) if end - start == 1 else None
            if new is not None:
                ids[row, col] = new
        return dict(enc)


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


def _encoder(layers: int | None = None) -> tuple[Any, Any]:
    """The base encoder (its first ``layers`` layers only, when given) and its tokenizer."""
    offline_env()
    from transformers import AutoModel, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    base = minilm_dir()
    encoder = AutoModel.from_pretrained(base)
    if layers is not None:
        if not 1 <= layers <= encoder.config.num_hidden_layers:
            raise ValueError(f"layers must be 1..{encoder.config.num_hidden_layers}, got {layers}")
        encoder.encoder.layer = encoder.encoder.layer[:layers]
        encoder.config.num_hidden_layers = layers
    return encoder, AutoTokenizer.from_pretrained(base)


def new_classifier(num_labels: int, *, rank: int, alpha: int, dropout: float,
                   token_ids: list[int] | None = None, layers: int | None = None) -> tuple[MeanPoolClassifier, Any]:
    """A trainable classifier: LoRA on the encoder's attention, trainable embedding rows for
    ``token_ids`` (a :class:`CharVocab`'s), a fresh head (seed torch first); ``layers``: on the
    encoder's first that many layers only (a cheaper reader; :func:`save_classifier` records it)."""
    from peft import LoraConfig, get_peft_model

    encoder, tokenizer = _encoder(layers)
    lora = LoraConfig(r=rank, lora_alpha=alpha, lora_dropout=dropout, target_modules=LORA_TARGETS,
                      trainable_token_indices={"word_embeddings": list(token_ids)} if token_ids else None)
    return MeanPoolClassifier(get_peft_model(encoder, lora), num_labels), tokenizer


def new_tokenizer() -> Any:
    """The base tokenizer alone (to build a :class:`CharVocab` before the model exists)."""
    offline_env()
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(minilm_dir())


def save_classifier(model: MeanPoolClassifier, out_dir: Path) -> None:
    from safetensors.torch import save_file

    model.encoder.save_pretrained(str(out_dir))
    save_file({k: v.detach().contiguous() for k, v in model.head.state_dict().items()}, str(out_dir / HEAD_FILE))
    layers, full = model.encoder.config.num_hidden_layers, _base_layers()
    (out_dir / LAYERS_FILE).unlink(missing_ok=True)
    if layers != full:
        (out_dir / LAYERS_FILE).write_text(json.dumps({"num_hidden_layers": layers}) + "\n", encoding="utf-8")


def _base_layers() -> int:
    return int(json.loads((Path(minilm_dir()) / "config.json").read_text(encoding="utf-8"))["num_hidden_layers"])


def load_classifier(adapter_dir: Path, num_labels: int) -> tuple[MeanPoolClassifier, Any]:
    """Base encoder + LoRA (merged for speed) + head, in eval mode."""
    from peft import PeftModel
    from safetensors.torch import load_file

    encoder, tokenizer = _encoder(encoder_layers(adapter_dir))
    encoder = PeftModel.from_pretrained(encoder, str(adapter_dir)).merge_and_unload()
    model = MeanPoolClassifier(encoder, num_labels)
    model.head.load_state_dict(load_file(str(adapter_dir / HEAD_FILE)))
    model.eval()
    return model, tokenizer
