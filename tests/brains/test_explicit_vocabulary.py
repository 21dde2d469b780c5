"""The collection's vocabulary is an input the offline rules are handed, never ambient state: the same
call gives the same names wherever it runs, and two brains over two collections never see each
other's names (issue 30, "hidden input")."""

from __future__ import annotations

import asyncio

import core.vocabulary
from core.brains.base import share_vocabulary
from core.brains.composite import CompositeBrain, LazyPart
from core.brains.offline import OfflineBrain
from core.brains.offline.lexicon import find_entities, mentions
from core.brains.offline.slots import extract_entities
from core.config import Settings
from core.vocabulary import DocumentText, Vocabulary, build

# invented papers: "Kestrel" and "Plover" are plain capitalized words, names only by the vocabulary
KESTREL = build([DocumentText("Kestrel: Reading Receipts", 2024, [], ["Kestrel reads receipts with a layout model."])])
PLOVER = build([DocumentText("Plover: Sparse Speech", 2024, [], ["Plover prunes a speech encoder."])])
QUESTION = "How does Kestrel read a receipt, and is Plover faster?"


def test_entity_finding_reads_only_its_arguments() -> None:
    assert find_entities(QUESTION, KESTREL) == [(QUESTION.index("Kestrel"), "Kestrel")]
    assert find_entities(QUESTION, PLOVER) == [(QUESTION.index("Plover"), "Plover")]
    assert find_entities(QUESTION, Vocabulary()) == []
    assert extract_entities(QUESTION, KESTREL) == ["Kestrel"]
    assert mentions("kestrel's layout model", "Kestrel", KESTREL)
    assert not hasattr(core.vocabulary, "active") and not hasattr(core.vocabulary, "current")


async def test_two_brains_over_two_collections_fill_slots_side_by_side() -> None:
    a, b = OfflineBrain(vocabulary=KESTREL), OfflineBrain(vocabulary=PLOVER)
    out_a, out_b = await asyncio.gather(a.fill_slots(QUESTION, "factual", [], KESTREL.names()),
                                        b.fill_slots(QUESTION, "factual", [], PLOVER.names()))
    assert out_a.entities == ["Kestrel"]
    assert out_b.entities == ["Plover"]
    assert (await OfflineBrain().fill_slots(QUESTION, "factual", [], [])).entities == []


def test_a_composite_brain_hands_the_vocabulary_to_every_offline_part() -> None:
    default, fallback = OfflineBrain(Settings()), OfflineBrain(Settings())
    brain = CompositeBrain({"classify": LazyPart("router", lambda: fallback, fallback, what="router")}, default)
    share_vocabulary(brain, KESTREL)
    assert default.vocabulary is KESTREL and fallback.vocabulary is KESTREL
