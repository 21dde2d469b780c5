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


def _pieces(paper: Paper, pieces: list[str], y: float, gap: float = 1) -> None:
    """One line of prose set in ``pieces``, with a superscript "(1)" and a subscript "j" on baselines
    of their own after each piece (as TeX sets x_j^{(1)}); the next piece starts ``gap`` points after
    the scripts."""
    x = LEFT
    for piece in pieces:
        paper.line(piece, x, y, SIZE)
        paper.pdf.set_font(paper.family, "", SIZE)
        x += paper.pdf.get_string_width(piece)
        paper.line("(1)", x + 0.5, y - 6, 7)
        paper.line("j", x + 0.5, y + 3, 7)
        paper.pdf.set_font(paper.family, "", 7)
        x += 0.5 + paper.pdf.get_string_width("(1)") + gap


def test_a_column_line_with_subscripts_beside_pseudo_code_keeps_the_column_order(tmp_path):
    """A left-column line of inline math set in pieces (each under 30 characters), with its
    subscripts on baselines of their own, beside short pseudo-code lines in the right column: the
    subscripts and the code lines share baselines, so each such row looked like a full-width
    table's row, and the page was cut into bands there. The right column's top was then read
    into the left column's sentence ("… where x is pre" + "subgradient leads to …"), and the
    words after it were lost among the code. The pieces together are one prose line, so the
    column runs on across those rows."""
    from tests.hub.pdfgen import MID

    paper = Paper().page()
    paper.line("A Study of Careful Reading", 150, 80, 16, bold=True)
    paper.line("Ada Lovelace", 250, 110, 12)
    paper.line("1 Introduction", LEFT, 150, 12, bold=True)
    y = paper.lines(filler_lines(8, 45), LEFT, 170)
    _pieces(paper, ["For a pair x = (x", ", x", ") where x", "is pre-"], y)
    _pieces(paper, ["ferred over x", ", and the gap x", ", we take the hinge"], y + 12)
    paper.lines(["loss of each pair, and the column ends here."] + filler_lines(4, 45), LEFT, y + 24)
    paper.lines(["Right column opens the next part."] + filler_lines(5, 40), MID + 20, 170)
    for k in range(8):  # pseudo-code: short lines, two of them on the pieced lines' baselines
        paper.line("end for" if k % 2 else "w <- w - g", MID + 50, y - 18 + 6 * k, 8)
    paper.lines(filler_lines(4, 40), MID + 20, y + 40)
    text = " ".join(b.text for b in read_document(paper.save(tmp_path / "scripts.pdf")).blocks)
    assert text.index("For a pair x") < text.index("ferred over") \
        < text.index("the column ends here") < text.index("Right column opens")


def test_a_script_of_a_script_joins_the_line_whatever_order_the_pieces_come_in():
    """A second-level script (the "i" of x_{j_i}) sits at the end of the first-level one, which joins
    the line: it joins the line too, in any order the PDF's text stream gives the pieces. Before,
    in one order it stayed a line of its own, and in the other it was dropped."""
    from core.hub.pdf.layout import Line, join_scripts

    def line(text, x0, x1, top, bottom, size):
        return Line(text, x0, x1, top, bottom, size, 1, base=bottom)

    for order in ((0, 1, 2), (0, 2, 1), (2, 1, 0), (1, 2, 0)):
        pieces = [line("we take e", 100, 140, 100, 110, 10), line("x", 140.5, 145, 96, 103, 7),
                  line("i", 145.5, 148, 100, 105, 5)]
        out = join_scripts([pieces[k] for k in order])
        assert [ln.text for ln in out] == ["we take exi"], (order, [ln.text for ln in out])
