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


def test_the_skip_threshold_is_the_lowest_that_keeps_the_blends_top1() -> None:
    """Groups where the scorer is sure (0.99) are as right alone as blended; at 0.93 and below the blend
    is right where the scorer alone is not, so the threshold is the lowest grid point above them, 0.94."""
    import numpy as np

    from training.reader_train import SKIP_TOLERANCE, choose_skip

    top = np.array([0.99] * 60 + [0.93] * 30 + [0.7] * 10)
    alone = np.array([1.0] * 60 + [0.0] * 30 + [0.0] * 10)
    blended = np.array([1.0] * 60 + [1.0] * 30 + [1.0] * 10)
    got = choose_skip(top, alone, blended)
    assert got["skip_above"] == 0.94 and got["read_share"] == 0.4 and got["heldout_top1"] == 1.0
    assert got["top1_reading_all"] == 1.0 and got["tolerance"] == SKIP_TOLERANCE
    never = choose_skip(np.array([0.999] * 10), np.zeros(10), np.ones(10))  # confident and wrong: read always
    assert never["skip_above"] is None and never["read_share"] == 1.0
