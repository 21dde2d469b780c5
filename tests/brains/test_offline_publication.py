"""Questions about a paper's publication (where or when it appeared, who wrote it) are answered from
the metadata the hub gives with each chunk (authors, venue, year), which a paper's text seldom states:
the direct answer is the paper's publication sentence, cited to the paper, backed by that citation, and
passed by the critic. Other questions never get it. The papers and their metadata are invented."""

from __future__ import annotations

from core.brains.offline.critic import claims, critique, support
from core.citations import supports
from core.config import CriticSettings
from core.types import DocMeta
from tests.brains.test_offline_defects import HERON, KITE, VOCAB, _answer

HERON_META = HERON.model_copy(update={"meta": DocMeta(authors=["Rosa Vale", "Ken Imai"], year=2023,
                                                      venue="Proceedings of the Workshop on Sparse Models")})
KITE_META = KITE.model_copy(update={"meta": DocMeta(authors=["Lena Orr", "Mei Chen", "Pia Lund", "Raj Mehta"],
                                                    year=2021, venue="Journal of Speech Systems")})
HERON_SAYS = ("HERON: Sparse Routing for Long Documents (Rosa Vale and Ken Imai) was published in "
              "Proceedings of the Workshop on Sparse Models, 2023.")


def test_the_publication_sentence_says_who_where_and_when_from_the_metadata():
    assert HERON_META.meta.publication(HERON.title) == HERON_SAYS
    assert KITE_META.meta.publication("Kite") == ("Kite (Lena Orr, Mei Chen, Pia Lund and others) was published in "
                                                  "Journal of Speech Systems, 2021.")
    assert DocMeta(venue="ICML 2011", year=2011).publication("X") == "X was published in ICML 2011."  # the year once
    assert DocMeta(authors=["Ada Lovelace"]).publication("X") == "X was written by Ada Lovelace."
    assert DocMeta(doi="10.1/x").publication("X") == ""


def test_where_a_paper_was_published_is_answered_from_its_metadata_and_passes_the_critic():
    q = "Which venue published HERON?"
    text = _answer(q, [HERON_META, KITE_META])
    lead = text.split("\n\n")[0]
    assert lead == f"{HERON_SAYS[:-1]} [1].", text
    found, _ = claims(lead)
    assert [support(c, [HERON_META, KITE_META]) for c in found] == [(True, "")]
    assert supports(HERON_SAYS, HERON_META)  # the formatter's check keeps the citation too
    intent = _intent(q)
    verdict = critique(q, intent, [HERON_META, KITE_META], text, [], CriticSettings(), vocab=VOCAB)
    assert verdict.passed and not verdict.forced, verdict.feedback


def test_each_row_of_a_comparison_of_venues_is_the_papers_metadata():
    q = "In which venues were HERON and Kite published?"
    text = _answer(q, [HERON_META, KITE_META], kind="comparative", intent_type="comparative")
    rows = [ln for ln in text.splitlines() if ln.startswith("| **")]
    assert len(rows) == 2 and "Workshop on Sparse Models, 2023" in rows[0] and "Journal of Speech Systems, 2021" in rows[1], text


def test_a_question_about_the_papers_content_gets_no_publication_sentence():
    text = _answer("What LongBench score does HERON reach?", [HERON_META, KITE_META])
    assert "was published in" not in text and "47.3" in text.split("\n\n")[0], text


def _intent(q: str):
    from core.brains.offline.slots import fill
    from core.state import Intent

    slots = fill(q, "factual", [], [], vocab=VOCAB)
    return Intent(type="factual", confidence=0.9, entities=slots["entities"], dimensions=slots["dimensions"],
                  reformulated_query=slots["reformulated_query"])
