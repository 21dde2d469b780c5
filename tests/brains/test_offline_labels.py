"""An answer line's bold lead label is no part of its claim, nor of a fact learnt from it: "**Tessel**
(2020): Road maps …" claims "Road maps …" (a library answer's bullets are so written), not "(2020): Road maps …"."""

from __future__ import annotations

import asyncio

import pytest

from core.brains.offline.text import unlabelled


@pytest.mark.parametrize("line, claim", [
    ("- **Kestrel:** It reads logs.", "It reads logs."),
    ("- **Kestrel**: It reads logs.", "It reads logs."),
    ("- **Kestrel** (2019): It reads logs. [1]", "It reads logs. [1]"),
    ("**Kestrel (2019)**: It reads logs.", "It reads logs."),
])
def test_a_bold_label_with_or_without_a_parenthetical_goes(line, claim):
    assert unlabelled(line) == claim
    assert unlabelled(line, colon=False) == claim


def test_a_bold_word_that_is_no_label_stays_with_colon():
    assert unlabelled("**Kestrel** (2019) reads logs.") == "**Kestrel** (2019) reads logs."


def test_a_fact_learnt_from_a_library_answer_has_no_year_label(tmp_path):
    from core.brains.offline.brain import OfflineBrain
    from core.config import load_settings
    from core.types import RetrievedContext

    ctx = RetrievedContext(content="Road maps take more space than phones can spare on long trips.", title="Tessel",
                           doc_id="tessel", chunk_id="tessel_00", breadcrumb="Tessel > Abstract")
    answer = ("### The one paper of the collection\n\n"
              "- **Tessel: Compressing Road Maps** (2020): Road maps take more space than phones can spare on long trips. [1]")
    facts = asyncio.run(OfflineBrain(load_settings(use_user_file=False)).extract_facts("What papers do I have?", answer, [ctx]))
    assert facts == ["Road maps take more space than phones can spare on long trips."]


def test_the_citation_checker_reads_the_same_claim():
    """The citation checker cuts the same label off (it quoted "(2018): Counting fossil shells …" in a
    re-point notice): one label pattern serves the critic, facts and citations (core.text)."""
    from core.citations import _unlabel

    assert _unlabel("- **Ammonite** (2018): Counting fossil shells by hand is slow and error-prone.") == \
        "Counting fossil shells by hand is slow and error-prone."
