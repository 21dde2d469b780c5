"""Held-out defect classes end to end on invented papers: the real bundled hub as a stdio server, real
SQLite stores, the real encoder, long-term memory on (the default) and questions in sequence.

Two invented abstracts: OWL (speech distilled at scale, naming Kite as its base) and Kite. After a
question on OWL teaches facts, a question on what Kite distils must not get OWL's sentences under
"From earlier sessions"; a question naming a model that no paper mentions must still be answered
from the paper it also names.
"""

from __future__ import annotations

import asyncio

import pytest

from core.brains.offline.synthesis import PRIOR_PREFIX
from tests.integration import helpers
from tests.integration.helpers import ask_all

COLLECTION = "defects"
PAPERS = {
    "owl.md": "# OWL: Distilled Speech at Scale\n\n## Abstract\n\nOWL builds on Kite and reaches a word error rate "
              "of 6.1% on read speech. OWL is trained on 40,000 hours of transcribed speech from audiobooks. "
              "OWL halves decoding latency compared with Kite on a single GPU.\n",
    "kite.md": "# Kite: Cheap Speech Recognition\n\n## Abstract\n\nKite distils a large speech recognizer into a "
               "90M-parameter student model. Kite cuts the word error rate by 18% at equal compute. The student "
               "model of Kite is trained with a load-balancing loss over its attention heads.\n",
}


def papers_home(tmp_path, monkeypatch):
    """Settings of a private home whose ``defects`` collection holds the two invented papers (memory on,
    the default a user runs with; the rule router, so routing does not vary with the adapter)."""
    s = helpers.papers_home(tmp_path, monkeypatch, PAPERS, COLLECTION)
    assert s.memory.enabled
    return s


@pytest.mark.slow
def test_memory_and_an_unknown_name_in_a_real_session(tmp_path, monkeypatch):
    s = papers_home(tmp_path, monkeypatch)

    first, second, third = asyncio.run(ask_all([
        "How many hours of speech is OWL trained on, and how does it compare with Kite?",
        "What does Kite distil into a student model?",
        "What load-balancing loss does Kite use with Zephyr-7?",
    ], s, persist=True))
    assert "40,000" in first.result.final_answer

    # facts learnt from the first answer were recalled for the Kite question; none of OWL's joins it
    recalled = second.result.recalled_facts
    assert recalled, recalled
    answer = second.result.final_answer
    assert "90M-parameter student" in answer.split("\n\n")[0]
    assert PRIOR_PREFIX not in answer and "40,000" not in answer and "6.1%" not in answer, answer

    # Zephyr-7 is in no paper: the question is answered from Kite's, and the critic says what is missing
    answer = third.result.final_answer
    assert "holds no evidence" not in answer, answer
    assert "load-balancing loss" in answer.split("\n\n")[0], answer
    critic = third.result.critic
    assert critic is not None and any("Zephyr-7" in i for i in critic.issues), critic
