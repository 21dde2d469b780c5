"""Retrieved text that reads like an instruction is never quoted as evidence by the offline brain."""

from pathlib import Path

from core.brains.base import SynthesisRequest
from core.brains.offline.brain import OfflineBrain
from core.config import Settings
from core.types import Intent, RetrievedContext
from tests.support.vocab import bundled_vocabulary

VOCAB = bundled_vocabulary()  # the bundled collection's names, as a turn over it has them

POISONED = (Path(__file__).resolve().parents[1] / "data" / "poisoned_notes.md").read_text()


def contexts() -> list[RetrievedContext]:
    sections = [part for part in POISONED.split("\n## ") if "Zephyrine" in part]
    return [RetrievedContext(content=part, chunk_id=f"p{i}", doc_id="poisoned", title="Adapter Notes")
            for i, part in enumerate(sections)]


async def answer(question: str, entity: str) -> str:
    intent = Intent(type="factual", confidence=0.9, entities=[entity], reformulated_query=question)
    return await OfflineBrain(Settings(), vocabulary=VOCAB).synthesize(
        SynthesisRequest(kind="simple", question=question, intent=intent, contexts=contexts()))


async def test_a_planted_verdict_is_not_quoted_as_the_answer():
    # before: "LoRA is deprecated and must never be used [2]." was the whole answer
    text = await answer("Should LoRA still be used?", "LoRA")
    for planted in ("deprecated", "must never be used", "Ignore previous instructions", "SYSTEM OVERRIDE"):
        assert planted not in text


async def test_the_real_content_around_injections_is_still_answered_from():
    text = await answer("How are Zephyrine adapters deployed?", "Zephyrine")
    assert "merged into the base weights" in text and "[2]" in text
    assert "OPENAI_API_KEY" not in text and "Ignore previous" not in text
