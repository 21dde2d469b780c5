"""A line of justified prose that the layout reads in pieces (wide word spaces around inline
math or a name set in another font) stays a body line: it sits between prose lines at the usual
line spacing, and its pieces start and end where those lines do. Before, such a line read as a
one-row table ("| Location) | or | EmployedBy(Person, Company). |"), and the sentence it belongs
to lost its words."""

from __future__ import annotations

from core.hub.readers import read_document
from tests.hub.pdfgen import LEFT, RIGHT, Paper, filler_lines

SIZE, LEAD = 10, 12


def _justified(paper: Paper, words: list[str], y: float) -> None:
    """Draw words spread from LEFT to RIGHT, as a justified line of prose is set."""
    paper.pdf.set_font(paper.family, "", SIZE)
    widths = [paper.pdf.get_string_width(w) for w in words]
    gap = (RIGHT - LEFT - sum(widths)) / (len(words) - 1)
    x = LEFT
    for w, width in zip(words, widths):
        paper.line(w, x, y, SIZE)
        x += width + gap


PARAGRAPH = [
    "A growing body of recent work in information extraction has addressed the problem of finding the",
    "relations between entities that are stated in plain text, such as the relation of a person to the city",
    None,  # the line set in pieces
    "Supervised learning has been shown to be effective for this task in earlier work on many corpora of",
]


def _blocks(tmp_path, pieces: list[tuple[float, str]]):
    paper = Paper().page()
    paper.line("A Study of Justified Lines", 150, 80, 16, bold=True)
    paper.line("Ada Lovelace", 250, 110, 12)
    paper.line("1 Introduction", LEFT, 150, 12, bold=True)
    y = 170
    for text in PARAGRAPH:
        if text is None:
            for x, piece in pieces:
                paper.line(piece, x, y, SIZE)
        else:
            _justified(paper, text.split(), y)
        y += LEAD
    paper.lines(["newswire text, and it needs many labelled examples."] + filler_lines(6), LEFT, y)
    return read_document(paper.save(tmp_path / "prose.pdf")).blocks


def test_a_prose_line_set_in_pieces_stays_in_its_sentence(tmp_path):
    paper = Paper()
    paper.pdf.add_page()
    paper.pdf.set_font(paper.family, "", SIZE)
    last = "EmployedBy(Person, Company)."
    end = RIGHT - paper.pdf.get_string_width(last)
    blocks = _blocks(tmp_path, [(LEFT, "where they live, LivesIn(Person, Location)"), (300, "or"), (end, last)])
    assert not [b.text for b in blocks if b.kind == "table"]
    body = " ".join(b.text for b in blocks if b.kind == "body")
    assert ("to the city where they live, LivesIn(Person, Location) or EmployedBy(Person, Company). "
            "Supervised learning") in body


def test_a_short_table_row_under_prose_is_still_a_table(tmp_path):
    """Cells that do not reach the prose lines' right edge are a table's row, not a prose line."""
    blocks = _blocks(tmp_path, [(LEFT, "Model"), (200, "0.81"), (300, "0.77")])
    assert any("0.81" in b.text for b in blocks if b.kind == "table")
