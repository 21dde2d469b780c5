"""Questions about a paper's publication (where or when it appeared, who wrote it) are answered from
the metadata the hub gives with each chunk (authors, venue, year), which a paper's text seldom states:
the direct answer is the paper's publication sentence, cited to the paper, backed by that citation, and
passed by the critic. Other questions never get it. The papers and their metadata are invented."""

from __future__ import annotations

import pytest

from core.brains.offline.critic import claims, critique, support
from core.brains.offline.evidence import profile
from core.citations import supports
from core.config import CriticSettings
from core.types import DocMeta
from tests.brains.test_offline_defects import HERON, KITE, OWL, VOCAB, _answer

HERON_META = HERON.model_copy(update={"meta": DocMeta(authors=["Rosa Vale", "Ken Imai"], year=2023,
                                                      venue="Proceedings of the Workshop on Sparse Models")})
KITE_META = KITE.model_copy(update={"meta": DocMeta(authors=["Lena Orr", "Mei Chen", "Pia Lund", "Raj Mehta"],
                                                    year=2021, venue="Journal of Speech Systems")})
HERON_SAYS = "HERON (Rosa Vale and Ken Imai) was published in Proceedings of the Workshop on Sparse Models, 2023."


def test_the_publication_sentence_says_who_where_and_when_from_the_metadata():
    assert HERON_META.meta.publication(HERON.title) == HERON_SAYS  # the paper by its short name
    assert KITE_META.meta.publication("Kite") == ("Kite (Lena Orr, Mei Chen, Pia Lund and others) was published in "
                                                  "Journal of Speech Systems, 2021.")
    assert DocMeta(venue="ICML 2011", year=2011).publication("X") == "X was published in ICML 2011."  # the year once
    assert DocMeta(authors=["Ada Lovelace"]).publication("X") == "X was written by Ada Lovelace."
    assert DocMeta(doi="10.1/x").publication("X") == ""


def test_initials_abbreviations_and_a_title_that_asks_leave_one_claim_the_critic_passes():
    """The claim splitter cuts at a full stop or question mark before a capital: an author's initial,
    an abbreviated venue or a title's own question would make the sentence several claims, the first
    uncited."""
    meta = DocMeta(authors=["Edward J. Hu", "Yelong Shen"], venue="Proc. VLDB Endow.", year=2021)
    heron = HERON.model_copy(update={"title": "Does Sparse Routing Help? A Study of HERON", "meta": meta})
    said = meta.publication(heron.title)
    assert said == "Does Sparse Routing Help: A Study of HERON (Edward J Hu and Yelong Shen) was published in Proc VLDB Endow, 2021."
    q = "Where was HERON published?"
    text = _answer(q, [heron, KITE_META])
    found, _ = claims(text.split("\n\n")[0])
    assert len(found) == 1 and support(found[0], [heron, KITE_META]) == (True, ""), text
    verdict = critique(q, _intent(q), [heron, KITE_META], text, [], CriticSettings(), vocab=VOCAB)
    assert verdict.passed and not verdict.forced, verdict.feedback


def test_where_a_paper_was_published_is_answered_from_its_metadata_and_passes_the_critic():
    q = "Which venue published HERON?"
    text = _answer(q, [HERON_META, KITE_META])
    lead = text.split("\n\n")[0]
    assert text == lead == f"{HERON_SAYS[:-1]} [1].", text  # and nothing after it: the rest would be padding
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


@pytest.mark.parametrize("question", [
    "What LongBench score does HERON reach?",
    "What do the authors of the paper propose in HERON?",
    "How does HERON compare with previously published baselines?",
    "Which journal articles does HERON cite?",
    "What publication bias does HERON report?",
    "What year range of data does HERON use?",
    "Where does HERON appear in the LongBench ranking?",
    "作者在HERON中提出了什么方法?",
])
def test_a_question_about_the_papers_content_is_no_publication_question(question):
    prof = profile(question, vocab=VOCAB)
    assert not prof.bibliographic and not prof.publication_only
    assert "was published in" not in _answer(question, [HERON_META, KITE_META])


@pytest.mark.parametrize("question", [
    "Who are the authors of HERON?", "When did HERON come out?", "Where was HERON published?",
    "In which conference did HERON appear?", "HERON 发表在哪个会议上？", "Who wrote HERON?",
])
def test_publication_questions_in_their_usual_forms_are_read_so(question):
    prof = profile(question, vocab=VOCAB)
    assert prof.bibliographic and prof.publication_only, question


def test_a_question_that_asks_more_than_the_publication_is_answered_by_the_evidence_first():
    """ "… and where was it published?" after a content question: the metadata joins the pool, but
    leads nothing, and no cell of a comparison's table quotes it."""
    q = "What LongBench score does HERON reach, and where was it published?"
    assert profile(q, vocab=VOCAB).bibliographic and not profile(q, vocab=VOCAB).publication_only
    assert not _answer(q, [HERON_META, KITE_META]).startswith("HERON (Rosa Vale")
    text = _answer("Compare the word error rate of Kite and OWL, and where were they published?",
                   [KITE_META, OWL], kind="comparative", intent_type="comparative")
    rows = [ln for ln in text.splitlines() if ln.startswith("| **")]
    assert len(rows) == 2 and not any("was published in" in r for r in rows), text  # the prose below may say it


def _intent(q: str):
    from core.brains.offline.slots import fill
    from core.state import Intent

    slots = fill(q, "factual", [], [], vocab=VOCAB)
    return Intent(type="factual", confidence=0.9, entities=slots["entities"], dimensions=slots["dimensions"],
                  reformulated_query=slots["reformulated_query"])


def test_a_name_spelt_otherwise_than_its_term_is_still_only_a_name():
    """The collection's term is "Kestrel-Net", the question writes "KestrelNet": the question still asks
    nothing but where the paper was published."""
    from core.state import Intent
    from core.vocabulary import DocumentText, build

    vocab = build([DocumentText("Kestrel-Net: Replay for Streaming Agents", 2022, [], ["Kestrel-Net replays episodes."])])
    q = "KestrelNet 是在哪个期刊上发表的？"
    prof = profile(q, Intent(type="factual", confidence=0.9, entities=["Kestrel-Net"], reformulated_query=q), vocab=vocab)
    assert prof.bibliographic and prof.publication_only


@pytest.mark.parametrize("q", ["Where were HERON and Kite published, and in which years?",
                               "Compare where HERON and Kite were published."])
def test_a_comparison_of_where_papers_appeared_is_their_publications_alone(q):
    """Each row is its paper's publication sentence under a "Publication" column, and nothing follows the
    table: before, the column read "Overview" and a "More on each." paragraph quoted the papers' results."""
    from core.state import Intent
    from core.brains.offline.slots import fill

    text = _answer(q, [HERON_META, KITE_META], kind="comparative", intent_type="comparative")
    assert text.splitlines()[0] == "| | Publication |", text
    assert text == "\n".join([
        "| | Publication |", "|---|---|",
        f"| **HERON** | {HERON_SAYS[:-1]} [1] |",
        "| **Kite** | Kite (Lena Orr, Mei Chen, Pia Lund and others) was published in Journal of Speech Systems, 2021 [2] |",
    ]), text
    slots = fill(q, "comparative", [], [], vocab=VOCAB)
    intent = Intent(type="comparative", confidence=0.9, entities=slots["entities"], dimensions=slots["dimensions"],
                    reformulated_query=slots["reformulated_query"])
    verdict = critique(q, intent, [HERON_META, KITE_META], text, [], CriticSettings(), vocab=VOCAB)
    assert verdict.passed and not verdict.forced, verdict.feedback
