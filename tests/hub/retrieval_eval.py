"""Recall@k of each retrieval leg on the labelled queries (document-level relevance)."""

from __future__ import annotations

import json
from pathlib import Path

LABELS = Path(__file__).resolve().parents[1] / "data" / "retrieval_labels.jsonl"


def load_labels(path: Path = LABELS) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def recall_at_k(searcher, labels: list[dict], legs: str, k: int = 5, collection: str = "default") -> float:
    """Mean fraction of each query's relevant files found among the top-k hits."""
    total = 0.0
    for lab in labels:
        hits = searcher.search(collection, lab["query"], k, legs=legs)
        found = {Path(h.chunk.path).name for h in hits}
        rel = set(lab["relevant"])
        total += len(rel & found) / len(rel)
    return total / len(labels)
