"""Two authors' blocks set side by side under the title (name, department, address, e-mail, one
block in each half of a two-column page) are read as the front matter, one block after the other,
before either column's text. Before, the right-hand block was read as the top of the right
column, and its lines were glued into the introduction's sentences."""

from __future__ import annotations

from core.hub.readers import read_document
from tests.hub.pdfgen import LEFT, MID, Paper, filler_lines

BLOCK = ["Department of Computer Science", "University of Somewhere", "Springfield, XY 12345"]


def _doc(tmp_path):
    paper = Paper().page()
    paper.line("Reading Bylines in Order", 200, 80, 16, bold=True)
    for x, name, mail in ((110, "Ada Lovelace", "ada@example.edu"), (360, "Grace Hopper", "grace@example.edu")):
        paper.lines([name, *BLOCK, mail], x, 120, 11, lead=13)
    paper.line("Abstract", 150, 210, 11, bold=True)
    paper.lines(filler_lines(6, 48), LEFT, 230)
    paper.line("1 Introduction", LEFT, 320, 11, bold=True)
    paper.lines(filler_lines(20, 48), LEFT, 340)
    paper.lines(["The right column opens with this sentence about parsers."] + filler_lines(30, 48), MID + 10, 230)
    return read_document(paper.save(tmp_path / "bylines.pdf"))


def test_side_by_side_author_blocks_are_front_matter_not_body(tmp_path):
    doc = _doc(tmp_path)
    body = " ".join(b.text for b in doc.blocks if b.kind in ("body", "abstract"))
    assert "grace@example.edu" not in body and "Grace Hopper" not in body
    assert "The right column opens with this sentence about parsers." in body
    front = " ".join(b.text for b in doc.blocks if b.kind == "front")
    assert front.index("ada@example.edu") < front.index("Grace Hopper") < front.index("grace@example.edu")


def test_both_authors_of_side_by_side_blocks_are_found(tmp_path):
    """An address line that opens with a number ("1 University Station C0500") is not a numbered
    heading: the byline goes on to the second author's block."""
    paper = Paper().page()
    paper.line("Reading Bylines in Order", 200, 80, 16, bold=True)
    for x, name in ((110, "Ada Lovelace"), (360, "Grace Hopper")):
        paper.lines([name, "Department of Computer Science", "1 University Station C0500", "Springfield, XY 12345"],
                    x, 120, 11, lead=13)
    paper.line("Abstract", 150, 210, 11, bold=True)
    paper.lines(filler_lines(6, 48), LEFT, 230)
    paper.line("1 Introduction", LEFT, 320, 11, bold=True)
    paper.lines(filler_lines(20, 48), LEFT, 340)
    paper.lines(filler_lines(30, 48), MID + 10, 230)
    doc = read_document(paper.save(tmp_path / "authors.pdf"))
    assert doc.authors == ["Ada Lovelace", "Grace Hopper"]


def _byline(tmp_path, blocks: list[tuple[float, list[tuple[str, float, bool]]]], name: str):
    """A paper whose byline is ``blocks``: (x, [(text, size, bold), …]), lines one under another."""
    paper = Paper().page()
    paper.line("Reading Bylines in Order", 200, 80, 16, bold=True)
    for x, lines in blocks:
        for i, (text, size, bold) in enumerate(lines):
            paper.line(text, x, 120 + 13 * i, size, bold=bold)
    paper.line("Abstract", 150, 230, 11, bold=True)
    paper.lines(filler_lines(6, 48), LEFT, 250)
    paper.line("1 Introduction", LEFT, 330, 11, bold=True)
    paper.lines(filler_lines(20, 48), LEFT, 350)
    paper.lines(filler_lines(30, 48), MID + 10, 250)
    return read_document(paper.save(tmp_path / name))  # blocks one under another: read in order


def test_names_are_the_bylines_bold_lines_when_it_has_any(tmp_path):
    """Affiliations under bold names are not authors ("Quokka Science and Engineering"), and a
    postcode that opens an address line ("12345 Springfield, Freedonia") does not end the byline."""
    doc = _byline(tmp_path, [(200, [("Ada Lovelace", 11, True), ("Quokka Science and Engineering", 11, False),
                                    ("12345 Springfield, Freedonia", 11, False), ("Grace Hopper", 11, True),
                                    ("Imaginary Languages Institute", 11, False)])], "bold.pdf")
    assert doc.authors == ["Ada Lovelace", "Grace Hopper"]


def test_names_are_the_bylines_largest_lines_and_affiliation_marks_are_dropped(tmp_path):
    """Names set larger than their addresses ("Acme Research, Glen Haven, XY" is no author "Glen
    Haven"); a mark glued to a name ("Lovelace1") is not part of it, and a line opening with a mark
    ("1Quokka & Wombat Sciences") is an affiliation."""
    doc = _byline(tmp_path, [(200, [("Ada Lovelace1", 12, False), ("1Quokka & Wombat Sciences", 10, False),
                                    ("Acme Research, Glen Haven, XY", 10, False), ("Grace Hopper1,2", 12, False),
                                    ("2Imaginary Medical Institute", 10, False)])], "sizes.pdf")
    assert doc.authors == ["Ada Lovelace", "Grace Hopper"]
    same = _byline(tmp_path, [(110, [("Ada Lovelace1", 11, False), ("1Quokka & Wombat Sciences", 11, False)])],
                   "marks.pdf")
    assert same.authors == ["Ada Lovelace"]
