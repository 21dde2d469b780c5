"""The reader's training groups: the answer and its negatives, half of them from its own paper."""

from __future__ import annotations

import random

from training.reader_train import sample

GROUP = {"question": "What does KESTREL add?", "candidates": [
    {"text": "KESTREL adds sparse adapters.", "label": 1, "own": True},
    *({"text": f"own {i}", "label": 0, "own": True} for i in range(6)),
    *({"text": f"other {i}", "label": 0, "own": False} for i in range(6)),
]}


def test_a_sample_holds_the_answer_and_negatives_half_from_its_own_paper() -> None:
    for seed in range(20):
        texts, gold = sample(GROUP, random.Random(seed), 7)
        assert texts[gold] == "KESTREL adds sparse adapters." and len(texts) == 8 == len(set(texts))
        assert sum(t.startswith("own") for t in texts) == 4 and sum(t.startswith("other") for t in texts) == 3
    few = {**GROUP, "candidates": GROUP["candidates"][:3]}  # two negatives, both of its own paper
    texts, gold = sample(few, random.Random(0), 7)
    assert sorted(texts) == sorted(c["text"] for c in few["candidates"])
