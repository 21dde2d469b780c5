"""A line piece that starts with a raised footnote mark ("⁶ We" after "…test set.") sits on the
baseline of its own letters, not of the mark: it is read at the end of its line, before the next
line. Before, the mark's raised origin put the piece above its line, and the sentence read
"…tuned on the dev set, 6 We and evaluated on the test set. see a high variance"."""

from __future__ import annotations

from core.hub.readers import read_document
from tests.hub.pdfgen import LEFT, Paper, filler_lines


def test_a_piece_opening_with_a_raised_mark_stays_on_its_line(tmp_path):
    paper = Paper().page()
    paper.line("A Study of Footnote Marks", 150, 80, 16, bold=True)
    paper.line("Ada Lovelace", 250, 110, 12)
    paper.line("1 Results", LEFT, 150, 12, bold=True)
    y = paper.lines(filler_lines(3), LEFT, 170)
    paper.line("The runs were tuned on the dev set and evaluated on the test set.", LEFT, y, 10)
    paper.pdf.set_font(paper.family, "", 10)
    end = LEFT + paper.pdf.get_string_width("The runs were tuned on the dev set and evaluated on the test set.")
    paper.line("6", end + 0.5, y - 4, 6)
    paper.line("We", end + 4, y, 10)
    paper.lines(["see a high variance around the median of all runs in this setting."] + filler_lines(3),
                LEFT, y + 12)
    paper.line("6 The dev set is the first half of the held out data.", LEFT, 700, 8)
    doc = read_document(paper.save(tmp_path / "mark.pdf"))
    body = " ".join(b.text for b in doc.blocks if b.kind == "body")
    assert "evaluated on the test set." in body and "We see a high variance" in body
    assert body.index("evaluated on the test set.") < body.index("We see a high variance")


def test_a_footnote_read_in_pieces_is_a_footnote_not_a_table_row(tmp_path):
    """A footnote whose first line opens with its raised mark and is set with wide spaces (before
    a URL) reads as pieces on one baseline: it stays the footnote, not a one-row table."""
    paper = Paper().page()
    paper.line("A Study of Footnote Marks", 150, 80, 16, bold=True)
    paper.line("Ada Lovelace", 250, 110, 12)
    paper.line("1 Results", LEFT, 150, 12, bold=True)
    paper.lines(["The code is public.3 It runs on one machine."] + filler_lines(20), LEFT, 170)
    paper.line("3", LEFT, 696, 5)
    paper.line("Available", LEFT + 3, 700, 8)
    paper.line("at", LEFT + 80, 700, 8)
    paper.line("https://example.org/quokka/parser/", LEFT + 140, 700, 8)
    paper.line("releases/latest/", LEFT, 710, 8)
    blocks = read_document(paper.save(tmp_path / "foot.pdf")).blocks
    assert not [b.text for b in blocks if b.kind == "table"]
    notes = " ".join(b.text for b in blocks if b.kind == "footnote")
    assert "Available at https://example.org/quokka/parser/" in notes
