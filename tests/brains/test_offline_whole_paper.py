"""Which questions are about one paper as a whole (answered from its abstract): those that ask
nothing of the named paper beyond its gist. Invented names; the vocabulary as a collection gives it."""

from __future__ import annotations

import pytest

from core.brains.offline.evidence import profile
from core.vocabulary import Term, Vocabulary

VOCAB = Vocabulary(terms=[Term("Wrenfield", kind="paper"), Term("Tessel", kind="paper")])


@pytest.mark.parametrize("question", [
    "What is the main idea of Wrenfield?", "What is the Wrenfield paper about?", "Summarize the Wrenfield paper.",
    "What problem does Wrenfield solve?", "What does Wrenfield propose?", "What are the contributions of Wrenfield?",
])
def test_a_question_asking_only_for_a_papers_gist_is_about_the_whole_paper(question):
    assert profile(question, None, vocab=VOCAB).whole_paper


@pytest.mark.parametrize("question", [
    "How many gauges does Wrenfield use?",  # asks a thing of the paper
    "What problem does the gauge selection in Wrenfield address?",  # asks about one part of it
    "Compare Wrenfield and Tessel.",  # two papers: a comparison
    "Who wrote Wrenfield?",  # its publication: the metadata answers
    "What is the main idea of calibration?",  # names no paper
])
def test_a_question_asking_more_than_the_gist_is_not(question):
    assert not profile(question, None, vocab=VOCAB).whole_paper
