"""Each side of a comparison is read from its own paper, end to end: the real bundled hub as a stdio
server, real SQLite stores and the real encoder, on invented papers.

Kite's own abstract is short; five other invented papers each say something about Kite (they build
on it, beat it, or reuse its data). A search for "Kite" over the whole collection returns their
chunks first, so without a retrieval scoped to Kite's paper, Kite's row quotes what others say of it.
"""

from __future__ import annotations

import asyncio
import re

import pytest

from core.config import load_settings
from tests.integration.helpers import ask_all

COLLECTION = "sides"
OTHERS = {
    "owl": "OWL builds on Kite and trains on 40,000 hours of speech, ten times the training data of Kite.",
    "tern": "Tern reuses the training data of Kite and adds 5,000 hours of noisy speech to Kite's training data.",
    "gull": "Gull replaces the training data of Kite with synthetic speech and beats Kite by 2 points.",
    "rook": "Rook distils Kite further; Kite's training data is filtered to 1,000 hours for Rook.",
    "crow": "Crow compares its training data with Kite's training data on five languages.",
}
PAPERS = {
    "kite.md": "# Kite: Cheap Speech Recognition\n\n## Abstract\n\nKite distils a large speech recognizer into a "
               "90M-parameter student. The student is trained on 12,000 hours of read audiobooks.\n",
    "finch.md": "# Finch: Small Vision Encoders\n\n## Abstract\n\nFinch is a 20M-parameter image encoder. Finch is "
                "trained on 3 million web images with alt-text.\n",
    **{f"{k}.md": f"# {k.upper()}: Speech Follow-up {i}\n\n## Abstract\n\n{v}\n" for i, (k, v) in enumerate(OTHERS.items())},
}


def _ingest(settings, docs) -> None:
    from core.hub.ingest import Ingestor
    from core.hub.store import HubStore

    store = HubStore(settings.paths.resolve(settings.paths.hub_db))
    try:
        report = Ingestor(store, embed=False).ingest(sorted(docs.iterdir()), COLLECTION)  # the hub embeds at start
    finally:
        store.close()
    assert report.added


@pytest.mark.slow
def test_each_row_of_a_comparison_quotes_its_own_paper(tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERPILOT_HOME", str(tmp_path / "home"))
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in PAPERS.items():
        (docs / name).write_text(text, encoding="utf-8")
    s = load_settings(use_user_file=False)
    s.agent.router = "rules"
    s.mcp.collection = COLLECTION
    s.memory.enabled = False
    _ingest(s, docs)

    (turn,) = asyncio.run(ask_all(["Compare Kite and Finch on training data."], s))
    result = turn.result
    answer = result.final_answer
    doc_of = {src.index: src.source.rsplit("/", 1)[-1] for src in result.sources}
    rows = {ln.split("|")[1].strip(" *"): ln for ln in answer.splitlines() if ln.startswith("| **")}
    assert set(rows) == {"Kite", "Finch"}, answer
    kite_marks = {int(n) for n in re.findall(r"\[(\d+)\]", rows["Kite"])}
    assert kite_marks and {doc_of[n] for n in kite_marks} == {"kite.md"}, (answer, doc_of)
    assert "12,000 hours" in rows["Kite"], answer
