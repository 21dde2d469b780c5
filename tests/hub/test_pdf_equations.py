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


def _paper(tmp_path, number: str | None = "(17)", list_item: bool = False, lead_in: bool = False):
    paper = Paper().page()
    paper.line("A Study of Careful Reading", 150, 80, 16, bold=True)
    paper.line("Ada Lovelace", 250, 110, 12)
    paper.line("3 Main Results", LEFT, 150, 12, bold=True)
    paper.pdf.set_font(paper.family, "", 10)
    right = LEFT + max(paper.pdf.get_string_width(t) for t in BODY + LEAD + AFTER)
    y = paper.lines(BODY + LEAD, LEFT, 170)
    if lead_in:  # a new paragraph's first line, indented, short: "Our main result is the bound" over the display
        paper.line("Our main result is the bound", LEFT + 16, y)
        y += 12
    paper.line("|||T - T*||| + |||G - G*||| <= a", 200, y + 4)
    if number:
        paper.line(number, right - paper.pdf.get_string_width(number), y + 4)
    paper.line("d1 d2", 250, y + 13, 7)
    y = paper.lines(AFTER, LEFT, y + 28)
    if list_item:  # a line of prose whose last word, "(2)", ends at the column's edge a word space apart
        text = "fail often, as item"  # its last space stretched as justification does (a piece of its own)
        while LEFT + paper.pdf.get_string_width(f"cheap {text}(2)") + 13 < right:
            text = f"cheap {text}"
        paper.line(text, LEFT, y)
        paper.line("(2)", LEFT + paper.pdf.get_string_width(text) + 13, y)
        paper.lines(["says; the list goes on."], LEFT, y + 12)
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


def test_an_unnumbered_display_and_a_prose_line_ending_in_a_number_stay_in_the_text(tmp_path):
    """Only a number set apart, flush right at the column's edge, after indented pieces marks a
    displayed equation: a line of prose whose last word "(2)" reaches the edge a word space after
    the rest is prose, and a display without a number is left as it is."""
    doc = _paper(tmp_path, number=None, list_item=True)
    assert not [b for b in doc.blocks if b.kind == "equation"]
    assert any("cheap fail often, as item (2) says; the list goes on." in s for s in _body_sentences(doc)), \
        _body_sentences(doc)


def test_a_paragraphs_indented_first_line_over_a_display_stays_in_the_text(tmp_path):
    """A new paragraph's first line is indented and may be short ("Our main result is the bound"):
    it is words, not a row of the display below it."""
    doc = _paper(tmp_path, lead_in=True)
    [eq] = [b for b in doc.blocks if b.kind == "equation"]
    assert "Our main result" not in eq.text
    assert any(s.endswith("Our main result is the bound (Equation 17).") for s in _body_sentences(doc)), \
        _body_sentences(doc)


def test_an_equation_numbered_by_section_is_a_display_too(tmp_path):
    """Longer papers number displays by section ("(3.2)") or appendix ("(A.1)")."""
    for number in ("(3.2)", "(A.1)"):
        doc = _paper(tmp_path, number=number)
        assert [b.path[-1] for b in doc.blocks if b.kind == "equation"] == [f"Equation {number}"]
        assert any(s.endswith(f"namely (Equation {number.strip('()')}).") for s in _body_sentences(doc))
