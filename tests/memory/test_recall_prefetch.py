"""FactStore.prefetch: the question's embedding, started as the turn starts, is the one recall uses."""

from __future__ import annotations

import numpy as np

from core.config import MemorySettings
from core.embeddings import embed
from core.memory.facts import FactStore

LORA = "LoRA freezes the pretrained weights and trains low-rank update matrices."


class Counting:
    """The real encoder, counting what it embeds; ``fail_once``: that text's first embedding raises."""

    def __init__(self, fail_once: str | None = None) -> None:
        self.texts: list[str] = []
        self.fail_once = fail_once

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.texts += texts
        if self.fail_once in texts:
            self.fail_once = None
            raise RuntimeError("encoder went away")
        return embed(texts)


async def test_a_prefetched_question_is_embedded_once(tmp_path):
    enc = Counting()
    store = FactStore(tmp_path / "s.sqlite3", MemorySettings(), embedder=enc)
    try:
        await store.memorize([LORA], source_question="q", session_id="s")
        enc.texts.clear()
        store.prefetch("What does LoRA train?")
        got = await store.recall("What does LoRA train?", 3)
        assert [f.content for f in got] == [LORA]
        assert enc.texts == ["What does LoRA train?"]  # recall did not embed it a second time
    finally:
        store.close()


async def test_another_question_or_a_failed_prefetch_embeds_as_usual(tmp_path):
    enc = Counting(fail_once="What does LoRA train?")
    store = FactStore(tmp_path / "s.sqlite3", MemorySettings(), embedder=enc)
    try:
        await store.memorize([LORA], source_question="q", session_id="s")
        store.prefetch("What does LoRA train?")  # this embedding fails
        got = await store.recall("What does LoRA train?", 3)
        assert [f.content for f in got] == [LORA]
        assert enc.texts[-2:] == ["What does LoRA train?"] * 2  # recall embedded it again itself
        store.prefetch("an older question")
        got = await store.recall("What does LoRA train?", 3)
        assert [f.content for f in got] == [LORA] and enc.texts[-1] == "What does LoRA train?"
    finally:
        store.close()
