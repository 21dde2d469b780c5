"""A displayed equation with its number set flush right ("… ≤ α  (17)") is a block of its own,
labelled "Equation (17)", not words of the paragraph around it, which reads "(Equation 17)" where
it stands. Before, its text and number ran into the next sentence: "(17) d1d2 This guarantee is
weaker …" was a body sentence, and an answer quoted it. On small papers drawn here."""

from __future__ import annotations

from core.brains.offline.text import passage_sentences
from core.hub.readers import read_document
from tests.hub.pdfgen import LEFT, Paper

BODY = ["We study the recovery of a low-rank matrix and a sparse matrix from their noisy sum, and we",
        "bound the error of a convex estimator in the Frobenius norm for every choice of the weights."]
LEAD = ["Further specializing to the case of exact observations yields a form of",
        "approximate recovery, namely"]
AFTER = ["This guarantee is weaker than the exact recovery results of earlier work, which",
         "imposed incoherence requirements on the singular vectors of the low-rank part."]


def _paper(tmp_path, number: str | None = "(17)", list_item: bool = False):
    paper = Paper().page()
    paper.line("A Study of Careful Reading", 150, 80, 16, bold=True)
    paper.line("Ada Lovelace", 250, 110, 12)
    paper.line("3 Main Results", LEFT, 150, 12, bold=True)
    paper.pdf.set_font(paper.family, "", 10)
    right = LEFT + max(paper.pdf.get_string_width(t) for t in BODY + LEAD + AFTER)
    y = paper.lines(BODY + LEAD, LEFT, 170)
    paper.line("|||T - T*||| + |||G - G*||| <= a", 200, y + 4)
    if number:
        paper.line(number, right - paper.pdf.get_string_width(number), y + 4)
    paper.line("d1 d2", 250, y + 13, 7)
    y = paper.lines(AFTER, LEFT, y + 28)
    if list_item:
        paper.lines(["(2) Commodity machines are used, and they fail often in a large cluster."], LEFT, y)
    return read_document(paper.save(tmp_path / "eq.pdf"))


def _body_sentences(doc) -> list[str]:
    return [s for b in doc.blocks if b.kind == "body" for s in passage_sentences(b.text)]


def test_a_numbered_displayed_equation_is_a_block_of_its_own(tmp_path):
    doc = _paper(tmp_path)
    eqs = [b for b in doc.blocks if b.kind == "equation"]
    assert [b.path[-1] for b in eqs] == ["Equation (17)"], [(b.kind, b.path[-1], b.text) for b in doc.blocks]
    assert "<= a" in eqs[0].text and "d1 d2" in eqs[0].text
    sentences = _body_sentences(doc)
    assert ("This guarantee is weaker than the exact recovery results of earlier work, which imposed "
            "incoherence requirements on the singular vectors of the low-rank part.") in sentences, sentences
    assert not any("(17)" in s or "d1 d2" in s or "<= a" in s for s in sentences)
    # the paragraph says where the display stands, and the sentence that runs into it ends there
    assert "Further specializing to the case of exact observations yields a form of approximate recovery, " \
           "namely (Equation 17)." in sentences, sentences


def test_an_unnumbered_display_and_a_list_item_stay_in_the_text(tmp_path):
    """Only a number set flush right at the column's edge marks a displayed equation; "(2)" opening
    a list item at the left margin is the item's number."""
    doc = _paper(tmp_path, number=None, list_item=True)
    assert not [b for b in doc.blocks if b.kind == "equation"]
    assert any(s.startswith("(2) Commodity machines are used") for s in _body_sentences(doc))
