"""The abstract's own lines stay the abstract's (on small papers drawn here): an abstract set
smaller than the body is not figure text, and its last line that reads like a section's name
("future work.") is not a heading that takes the line out of the text."""

from __future__ import annotations

from core.hub.readers import read_document
from tests.hub.pdfgen import LEFT, Paper, filler_lines

ABSTRACT = ["We study how careful readers summarize long papers. Prior work reads",
            "only the first page; we read the whole paper and its tables. On three",
            "benchmarks our reader improves accuracy by a wide margin over",
            "earlier systems and suggests directions for"]


def abstract_of(doc) -> str:
    return " ".join(b.text for b in doc.blocks if b.path[1:] == ["Abstract"])


def head() -> Paper:
    p = Paper().page()
    p.line("A Study of Careful Reading", 120, 80, 16, bold=True)
    p.line("Ada Lovelace and Alan Turing", 200, 110, 12)
    p.line("Abstract", 280, 150, 12, bold=True)
    return p


def introduction(p: Paper, y: float) -> Paper:
    p.line("1 Introduction", LEFT, y + 20, 12, bold=True)
    p.lines(filler_lines(12), LEFT, y + 40)
    return p


def paper(abstract_size: float, last: str = "future work.") -> Paper:
    p = head()
    y = p.lines(ABSTRACT + [last], LEFT, 170, abstract_size, lead=abstract_size + 2)
    return introduction(p, y)


def test_an_abstract_set_smaller_than_the_body_is_the_abstract(tmp_path):
    """Some styles set the abstract two points below the body (8 pt under a 10 pt body): below the
    size figure text is told by, but it is the abstract's running text, and the document's
    summary is read from it."""
    doc = read_document(paper(8).save(tmp_path / "small_abstract.pdf"))
    text = abstract_of(doc)
    assert text.startswith("We study how careful readers summarize long papers."), [(b.kind, b.path) for b in doc.blocks]
    assert not any(b.kind == "figure" for b in doc.blocks), [(b.kind, b.path, b.text[:40]) for b in doc.blocks]


def test_a_small_figure_label_after_the_abstract_stays_figure_text(tmp_path):
    """Only the abstract's own size is the abstract's: a smaller label below it (a teaser figure's
    axis) is still figure text, not the abstract's last words."""
    p = paper(8)
    p.line("0.1 0.2 0.3 accuracy", 300, 229, 5)
    doc = read_document(p.save(tmp_path / "label.pdf"))
    assert abstract_of(doc).startswith("We study how careful readers") and abstract_of(doc).endswith("future work.")


def test_a_teaser_figures_labels_at_the_abstracts_size_set_elsewhere_stay_figure_text(tmp_path):
    """A teaser figure under the abstract may label its axes at the abstract's size; set away from where
    the abstract's lines start, they are the figure's."""
    p = head()
    y = p.lines(ABSTRACT + ["future work."], LEFT, 170, 8, lead=10)
    p.line("0.2   0.4   0.6   0.8", 200, y + 12, 8)
    p.line("accuracy of readers", 220, y + 24, 8)
    doc = read_document(introduction(p, y + 30).save(tmp_path / "teaser.pdf"))
    assert abstract_of(doc).endswith("directions for future work."), abstract_of(doc)
    assert any(b.kind == "figure" and "accuracy of readers" in b.text for b in doc.blocks)


def test_a_small_label_read_before_the_abstract_does_not_take_its_place(tmp_path):
    """A figure's label read between the "Abstract" label and its text is no line of prose: the
    abstract's first line is its first line of prose, and the whole abstract stays the abstract."""
    p = head()
    p.line("(a) input", 300, 160, 5)
    y = p.lines(ABSTRACT + ["future work."], LEFT, 172, 8, lead=10)
    doc = read_document(introduction(p, y).save(tmp_path / "label_first.pdf"))
    assert abstract_of(doc).startswith("We study how careful readers"), [(b.kind, b.path, b.text[:30]) for b in doc.blocks]
    assert abstract_of(doc).endswith("future work.")


def test_a_smaller_piece_inside_an_abstract_line_keeps_the_line_in_the_abstract(tmp_path):
    """A line of a small abstract that holds a smaller piece (a URL in code type) reads at that piece's
    size; it is still the abstract's prose, as such a line is in the body."""
    p = head()
    y = p.lines(ABSTRACT[:3], LEFT, 170, 8, lead=10)
    x = LEFT
    for piece, size in (("earlier systems; code: ", 8), ("github.com/ada/careful-reader/tree/main", 6.5),
                        (" and data.", 8)):  # one line, its pieces side by side, mostly in the smaller size
        p.line(piece, x, y, size)
        p.pdf.set_font(p.family, "", size)
        x += p.pdf.get_string_width(piece)
    doc = read_document(introduction(p, y + 10).save(tmp_path / "inline.pdf"))
    assert abstract_of(doc).endswith("careful-reader/tree/main and data."), abstract_of(doc)
    assert not any(b.kind == "figure" for b in doc.blocks), [(b.kind, b.text[:40]) for b in doc.blocks]


def test_the_abstracts_last_line_naming_a_section_is_not_a_heading(tmp_path):
    """"future work." closes the abstract's last sentence; a section's name in lower case, ending a
    sentence, is not its heading, so the sentence keeps its end."""
    doc = read_document(paper(10).save(tmp_path / "future_work.pdf"))
    assert abstract_of(doc).endswith("suggests directions for future work."), abstract_of(doc)[-80:]
    assert not any(b.path[-1].lower().startswith("future work") for b in doc.blocks)


def test_a_bold_section_name_in_lower_case_is_a_heading(tmp_path):
    """Some styles set their section names in lower case and bold: those stay headings; only a name
    set as the text around it ("future work." ending a sentence) is not one."""
    p = Paper().page()
    p.line("A Study of Careful Reading", 120, 80, 16, bold=True)
    p.line("abstract", LEFT, 130, 12, bold=True)
    y = p.lines(ABSTRACT + ["future work."], LEFT, 150)
    p.line("introduction", LEFT, y + 20, 12, bold=True)
    y = p.lines(filler_lines(5), LEFT, y + 40)
    p.line("related work", LEFT, y + 20, 12, bold=True)
    p.lines(filler_lines(5), LEFT, y + 40)
    doc = read_document(p.save(tmp_path / "lower_headings.pdf"))
    crumbs = {b.path[-1] for b in doc.blocks if b.kind == "body"}
    assert {"introduction", "related work"} <= crumbs, [(b.kind, b.path) for b in doc.blocks]
    assert any(b.text.endswith("directions for future work.") for b in doc.blocks)


def test_a_justified_abstract_line_read_in_pieces_stays_whole(tmp_path):
    """A justified line whose last word stands apart is read as two pieces; the second starts far from
    where the abstract's lines start, yet its row does not: it is the abstract's word, not a label."""
    p = head()
    y = p.lines(ABSTRACT[:2], LEFT, 170, 8, lead=10)
    p.line("benchmarks our reader improves accuracy by a", LEFT, y, 8)
    p.pdf.set_font(p.family, "", 8)
    p.line("wide", LEFT + p.pdf.get_string_width("benchmarks our reader improves accuracy by a") + 12, y, 8)  # set apart
    y = p.lines(["margin over earlier systems and suggests directions for future work."], LEFT, y + 10, 8, lead=10)
    doc = read_document(introduction(p, y).save(tmp_path / "justified.pdf"))
    assert "improves accuracy by a wide margin over" in abstract_of(doc), [(b.kind, b.text[:50]) for b in doc.blocks]
    assert not any(b.kind == "figure" for b in doc.blocks)


def test_an_abstract_whose_first_line_is_indented_stays_whole(tmp_path):
    """A paragraph's first line may be the indented one (1.5 em): the abstract's next lines start left of
    it, and are the abstract's all the same."""
    p = head()
    p.line(ABSTRACT[0], LEFT + 12, 170, 8)
    y = p.lines(ABSTRACT[1:] + ["future work."], LEFT, 180, 8, lead=10)
    doc = read_document(introduction(p, y).save(tmp_path / "indented.pdf"))
    assert abstract_of(doc).endswith("suggests directions for future work."), [(b.kind, b.text[:40]) for b in doc.blocks]
    assert not any(b.kind == "figure" for b in doc.blocks)
