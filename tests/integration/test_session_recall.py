"""Recalled facts are shown as "From earlier sessions": a fact this session wrote itself is not one.

Real bundled hub as a stdio server, real SQLite stores and encoder, memory on (the default), one invented
paper. In one session the second question used to recall what the first one had just written, and the
answer labelled it as coming from earlier sessions; a later session must still recall it.
"""

from __future__ import annotations

import asyncio

import pytest

from tests.integration.helpers import ask_all
from tests.integration.test_defects_hub import papers_home

FIRST = "How many hours of speech is OWL trained on, and how does it compare with Kite?"
SECOND = "How many hours of transcribed speech is OWL trained on?"


@pytest.mark.slow
def test_a_session_does_not_recall_its_own_facts_but_a_later_session_does(tmp_path, monkeypatch):
    s = papers_home(tmp_path, monkeypatch)

    first, second = asyncio.run(ask_all([FIRST, SECOND], s, session="same-session", persist=True))
    taught = [f for e in first.of("memory_written") for f in e.facts]
    assert any("40,000" in f for f in taught), taught  # else the test proves nothing
    assert second.result.recalled_facts == [], second.result.recalled_facts

    (later,) = asyncio.run(ask_all([SECOND], s, session="a-later-session", persist=True))
    assert any("40,000" in f for f in later.result.recalled_facts), later.result.recalled_facts
