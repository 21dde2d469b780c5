"""A notice set under the body on a paper's first page (the venue line, a copyright or permission
notice: slightly smaller, a line apart, with no footnote marker) is a block of its own, not part of
the sentence that runs on past it. Before, a venue line set just above the figure-text size was
glued in: "Another technique is the Proceedings of the 30th … Conference creation of …"."""

from __future__ import annotations

from core.hub.readers import read_document
from tests.hub.pdfgen import LEFT, Paper, filler_lines


def test_a_venue_line_under_the_first_pages_body_stays_out_of_its_sentence(tmp_path):
    paper = Paper().page()
    paper.line("A Study of Page Notices", 150, 80, 16, bold=True)
    paper.line("Ada Lovelace", 250, 110, 12)
    paper.line("1 Introduction", LEFT, 150, 12, bold=True)
    y = paper.lines(filler_lines(30), LEFT, 170)
    paper.line("Another way to mislead a search engine is the", LEFT, y)
    paper.line("Proceedings of the 30th Quokka Conference, Springfield, 2004", LEFT, 720, 9)
    paper.page()
    paper.lines(["creation of many pages that all point to one target page."] + filler_lines(10), LEFT, 80)
    blocks = read_document(paper.save(tmp_path / "notice.pdf")).blocks
    body = " ".join(b.text for b in blocks if b.kind == "body")
    assert "Another way to mislead a search engine is the creation of many pages" in body
    assert "Quokka Conference" not in body
    assert any("Proceedings of the 30th Quokka Conference" in b.text for b in blocks if b.kind == "footnote")


def test_a_marked_footnote_on_a_later_page_is_still_found_by_its_mark(tmp_path):
    """Past the first page, a smaller line under the body without a marker is not taken as a note."""
    paper = Paper().page()
    paper.line("A Study of Page Notices", 150, 80, 16, bold=True)
    paper.line("1 Introduction", LEFT, 150, 12, bold=True)
    paper.lines(filler_lines(20), LEFT, 170)
    paper.page()
    paper.lines(filler_lines(30), LEFT, 80)
    paper.line("Results by run and seed, with the mean of five runs", LEFT, 720, 9)
    blocks = read_document(paper.save(tmp_path / "later.pdf")).blocks
    assert not any("Results by run and seed" in b.text for b in blocks if b.kind == "footnote")
