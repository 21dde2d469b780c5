"""Reader pdf-37: a sentence that a page or column break cut in two, with a footnote or a float read in
between, is made whole (tests/hub/pdfgen.py draws each paper). Seen in the full-text papers: "The resulting
text corpus consisted of about" ended one block and "three million sentences, and …" opened the next,
so neither half said how large the corpus was; "… has much lower precision than REVERB and" ended a
caption's "In the text" note."""

from __future__ import annotations

from core.hub.readers import read_document
from tests.hub.pdfgen import LEFT, Paper, filler_lines
from tests.hub.test_pdf_reader import texts_of, titled


def _paper(last_line: str, next_page: list[str]) -> Paper:
    """A results section whose paragraph ends page 1 on ``last_line`` above a footnote; page 2 opens
    with ``next_page``."""
    paper = titled(Paper())
    paper.line("2 Results", LEFT, 260, 12, bold=True)
    y = paper.lines(["We read every page of the collection by hand before the study began.",
                     "Each page was checked against its scan by a second reader."], LEFT, 280)
    paper.line(last_line, LEFT, y)
    paper.line("1 The archive is described in the appendix.", LEFT, 740, 7)
    paper.page()
    paper.lines(next_page + filler_lines(4), LEFT, 90)
    return paper


def _sentence_with(doc, words: str) -> str:
    from core.hub.chunking import block_sentences

    found = [s for t in texts_of(doc, "body") for s in block_sentences(t) if words in s]
    assert len(found) == 1, texts_of(doc, "body")
    return found[0]


def test_a_sentence_cut_by_a_page_break_and_a_footnote_is_one_sentence(tmp_path):
    doc = read_document(_paper("In the second study, the archive we scanned held about",
                               ["four thousand letters, and each was read twice.", "The letters span a century."])
                        .save(tmp_path / "cut.pdf"))
    assert _sentence_with(doc, "archive we scanned") == (
        "In the second study, the archive we scanned held about four thousand letters, and each was read twice.")
    # the rest of the next page stays in its own block, on its own page
    rest = next(b for b in doc.blocks if "The letters span a century." in b.text)
    assert rest.page == 2 and "four thousand" not in rest.text


def test_a_sentence_ending_on_a_conjunction_goes_on_with_a_name(tmp_path):
    doc = read_document(_paper("Kestrel has much lower precision than Osprey and",
                               ["Heron at all levels of recall."])
                        .save(tmp_path / "and.pdf"))
    assert "Kestrel has much lower precision than Osprey and Heron at all levels of recall" in _sentence_with(
        doc, "Kestrel")


def test_a_chart_label_after_the_break_is_not_taken_for_the_rest_of_the_sentence(tmp_path):
    """Text that does not finish a sentence ("Relation Phrases 85%") is not its rest, nor is a paragraph
    that starts a sentence of its own after one that ended."""
    doc = read_document(_paper("In the second study, the archive we scanned held about",
                               ["Relation Phrases 85% Satisfied"]).save(tmp_path / "label.pdf"))
    assert all("about Relation" not in t for t in texts_of(doc, "body"))
    doc = read_document(_paper("The archive was scanned twice.", ["the next part begins in lower case."])
                        .save(tmp_path / "ended.pdf"))
    assert all("twice. the next" not in t for t in texts_of(doc, "body"))
