"""Retrieval inside long documents, on invented notes through the real hub (SQLite, MiniLM from the wheel).

Each test names the mechanism it checks in :mod:`core.hub.search` / :mod:`core.hub.lexical`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from core.hub.ingest import Ingestor
from core.hub.service import Hub

BIRDS = ["Osprey", "Heron", "Plover", "Curlew", "Gannet", "Petrel", "Avocet", "Dunlin", "Godwit", "Shearwater",
         "Merlin", "Harrier", "Puffin", "Tern", "Sanderling", "Whimbrel", "Egret", "Bittern", "Grebe", "Skua"]
OPTIMIZERS = ["Adam", "SGD with momentum", "RMSprop", "AdamW", "Lion"]


def _hub(tmp_path: Path, notes: dict[str, str]) -> Hub:
    for name, text in notes.items():
        (tmp_path / f"{name}.md").write_text(text, encoding="utf-8")
    hub = Hub(tmp_path / "hub.sqlite3", sync=False)
    hub.start(background=False)
    Ingestor(hub.store).ingest(sorted(tmp_path.glob("*.md")), "default")
    return hub


@pytest.fixture(scope="module")
def paraphrased(tmp_path_factory) -> Hub:
    """Twenty notes that paraphrase a training question about other systems, and one note that answers it
    in its own words (a step size, not a learning rate) but names the system and its data."""
    notes = {b.lower(): f"# The {b} forecaster\n\n## Training\n\nThe {b} forecaster was trained with the "
                        f"{OPTIMIZERS[i % 5]} optimizer at a learning rate of 0.00{i + 1}, which the authors chose "
                        "after a sweep of optimizer settings.\n" for i, b in enumerate(BIRDS)}
    notes["kestrel"] = ("# Tide gauges of the northern coast\n\n## Field archive\n\nThe Halvorsen archive holds "
                        "hourly readings from 41 coastal gauges, cleaned of storm surges and harbour dredging noise; "
                        "the Kestrel forecaster was fitted to it with Adagrad and a step size of 0.07.\n")
    hub = _hub(tmp_path_factory.mktemp("paraphrased"), notes)
    yield hub
    hub.store.close()


def test_the_chunk_naming_the_questions_rare_terms_survives_dense_paraphrases(paraphrased):
    """Weighted fusion (LEXICAL_WEIGHT): the only chunk that names the system and its archive is the lexical
    leg's first, while twenty paraphrases outrank it on the dense leg; it must still reach the top 5."""
    question = "Which optimizer and learning rate did the Kestrel forecaster use on the Halvorsen archive?"
    hits = paraphrased.query(question, 5)
    lexical_first = paraphrased.searcher.lexical("default", "Kestrel forecaster Halvorsen archive optimizer", 1)
    assert paraphrased.store.chunks_by_rowid([lexical_first[0][0]])[lexical_first[0][0]].doc_id == "kestrel"
    kestrel = [h for h in hits if h.chunk.doc_id == "kestrel"]
    assert kestrel, [(h.chunk.doc_id, h.lexical_rank, h.dense_rank) for h in hits]
    assert kestrel[0].lexical_rank == 1 and kestrel[0].dense_rank > 5  # the case this test is about
    assert "step size of 0.07" in kestrel[0].chunk.text


def _paper(title: str, authors: list[str], step: str) -> str:
    body = " ".join(f"Section text {i} describes gauges, harbours and hourly readings of the northern coast."
                    for i in range(6))
    return (f"---\ntitle: {title}\nauthors: [{', '.join(authors)}]\n---\n# {title}\n\n## Introduction\n\n{body}\n\n"
            f"## Method\n\nWe fit the tide model with a step size of {step} and stop after twenty epochs.\n")


def test_a_paper_named_by_its_authors_reaches_its_body_chunk(tmp_path):
    """Document words (core.hub.store.document_words): three papers of one topic state their settings in the same
    words; a question that names a paper by its authors' surnames must reach that paper's method chunk."""
    hub = _hub(tmp_path, {
        "a_tides": _paper("Coastal Tide Forecasting", ["Ingrid Solberg", "Tomas Aune"], "0.03"),
        "b_tides": _paper("Forecasting Coastal Tides", ["Per Lunde", "Kari Vik"], "0.05"),
        "c_tides": _paper("Tide Forecasting on Coasts", ["Eirik Halvorsen", "Marit Brekke"], "0.07"),
    })
    try:
        hits = hub.query("Which step size did Halvorsen and Brekke use to fit the tide model?", 3)
        assert hits[0].chunk.doc_id == "c-tides", [(h.chunk.doc_id, h.chunk.text[:40]) for h in hits]
        assert "step size of 0.07" in hits[0].chunk.text
        assert hub.query("Solberg and Aune tide model step size", 1)[0].chunk.doc_id == "a-tides"
    finally:
        hub.store.close()
