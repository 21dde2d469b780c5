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


def paper(abstract_size: float, last: str = "future work.") -> Paper:
    p = Paper().page()
    p.line("A Study of Careful Reading", 120, 80, 16, bold=True)
    p.line("Ada Lovelace and Alan Turing", 200, 110, 12)
    p.line("Abstract", 280, 150, 12, bold=True)
    y = p.lines(ABSTRACT + [last], LEFT, 170, abstract_size, lead=abstract_size + 2)
    p.line("1 Introduction", LEFT, y + 20, 12, bold=True)
    p.lines(filler_lines(12), LEFT, y + 40)
    return p


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
    assert "accuracy" not in abstract_of(doc).split("future work.")[-1]


def test_the_abstracts_last_line_naming_a_section_is_not_a_heading(tmp_path):
    """"future work." closes the abstract's last sentence; a section's name in lower case, ending a
    sentence, is not its heading, so the sentence keeps its end."""
    doc = read_document(paper(10).save(tmp_path / "future_work.pdf"))
    assert abstract_of(doc).endswith("suggests directions for future work."), abstract_of(doc)[-80:]
    assert not any(b.path[-1].lower().startswith("future work") for b in doc.blocks)
