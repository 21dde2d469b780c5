"""Provenance of cited sentences: references, page furniture and glued headings, on invented papers."""

from __future__ import annotations

from training.eval_qa_provenance import Profile, claim_flags, flags, pdf_profile
from tests.hub.pdfgen import LEFT, Paper, filler_lines

PROFILE = Profile(
    references=["[4] Ada Lovelace and Alan Turing. 2019. Notes on the analytical engine for sparse indexing. "
                "In Proceedings of the Engine Conference, pages 1-9."],
    furniture=["Journal of Careful Reading, Vol. 7"],
    headings=["3.2 Experimental Setup", "Results", "4 HERON"],
)


def test_each_kind_of_set_apart_text_is_flagged() -> None:
    assert claim_flags("Notes on the analytical engine for sparse indexing. In Proceedings of the Engine", PROFILE) \
        == ["references"]
    assert claim_flags("Journal of Careful Reading, Vol. 7 The model is trained for ten epochs", PROFILE) \
        == ["furniture"]
    assert claim_flags("Experimental Setup We train the model for ten epochs", PROFILE) == ["glued heading"]
    assert claim_flags("3.2 Experimental Setup We train the model for ten epochs", PROFILE) == ["glued heading"]


def test_a_numbered_heading_glued_inside_a_claim_is_flagged() -> None:
    """The paragraph before a heading, the heading and the next section's first sentence read as
    one claim: the numbered heading sits in its middle, followed by a capitalized word."""
    assert claim_flags("this comes at the cost of lower precision on the Web 4 HERON This section introduces "
                       "HERON, a careful reader", PROFILE) == ["glued heading"]
    assert claim_flags("the runs are stable. 3.2 Experimental Setup We train the model for ten epochs",
                       PROFILE) == ["glued heading"]


def test_a_heading_named_inside_a_sentence_is_not_a_glued_heading() -> None:
    """Inside a claim only a heading with its number counts, and not after a cross-reference."""
    assert claim_flags("As described in Section 4 HERON Reads every page of the paper", PROFILE) == []
    assert claim_flags("We compare the Results Table of both runs with the held out data", PROFILE) == []
    assert claim_flags("The parser HERON This reader keeps every page apart", PROFILE) == []  # no number
    assert claim_flags("We ran 14 HERON Models on the data", PROFILE) == []  # another number
    assert claim_flags("We use 4 HERON runs on the data", PROFILE) == []  # a lower-case word follows
    assert claim_flags("as Sections 3 and 4 HERON Reads show", PROFILE) == []
    assert claim_flags("the runs went into 4 HERON The parser reads", PROFILE) == ["glued heading"]


def test_ordinary_sentences_are_not_flagged() -> None:
    assert claim_flags("We train the model for ten epochs on the analytical engine", PROFILE) == []
    assert claim_flags("Results of the second run are stable", PROFILE) == []  # a heading word, not a glued heading
    assert claim_flags("Results", PROFILE) == []
    assert claim_flags("Careful reading of journals helps", PROFILE) == []


def test_flags_use_the_cited_papers_profile_only() -> None:
    answer = "Experimental Setup We train for ten epochs [1]. Experimental Setup We test on CPUs [2]."
    out = flags(answer, {1: "heron", 2: "osprey"}, {"heron": PROFILE})
    assert out == ["glued heading: Experimental Setup We train for ten epochs"]


def test_a_pdfs_profile_comes_from_the_projects_reader(tmp_path) -> None:
    paper = Paper().page()
    paper.line("A Study of Careful Reading", 120, 80, 16, bold=True)
    paper.line("Ada Lovelace and Alan Turing", 200, 110, 12)
    paper.line("Abstract", 280, 150, 12, bold=True)
    paper.lines(filler_lines(4), LEFT, 170)
    for n in range(2, 5):
        paper.page()
        paper.line("Journal of Careful Reading, Vol. 7", 200, 30, 8)
        paper.line(f"{n} Section Number {n}", LEFT, 90, 12, bold=True)
        paper.lines(filler_lines(6), LEFT, 110)
    paper.line("References", LEFT, 300, 12, bold=True)
    paper.lines(["[1] Ada Lovelace. 2019. Notes on the analytical engine. In Proceedings of",
                 "the Engine Conference, pages 1-9."], LEFT, 320)
    prof = pdf_profile(paper.save(tmp_path / "p.pdf"))
    assert "Journal of Careful Reading, Vol. 7" in prof.furniture
    assert "3 Section Number 3" in prof.headings
    assert any("Notes on the analytical engine" in r for r in prof.references)
    assert claim_flags("Section Number 3 The method is trained on a large corpus", prof) == ["glued heading"]
    assert claim_flags("The method is trained on a large corpus of sentences", prof) == []
